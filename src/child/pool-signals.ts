/**
 * What a pool of idle children and a child it starts say to each other before any protocol frame:
 * the pool marks the child's environment, and the child announces on stderr, in a JSON line
 * carrying this message, that it is loaded and waiting for its payload.
 */

/** Set to `1` in the environment of a child started for a pool of idle children. */
export const CHILD_POOLED_ENV = 'ARBOR_CHILD_POOLED';

/** The `msg` of the line a child writes on stderr once it is loaded and waiting. */
export const CHILD_WAITING_MSG = 'child.waiting';

/** Set to `1` to start a child from a new snapshot only to check that it loads. */
export const SNAPSHOT_PROBE_ENV = 'ARBOR_CHILD_SNAPSHOT_PROBE';

/** What a child started with `SNAPSHOT_PROBE_ENV` writes on stdout, then exits. */
export const SNAPSHOT_PROBE_REPLY = 'arbor child snapshot: loaded';
