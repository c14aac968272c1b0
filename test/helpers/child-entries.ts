import {
  childCommand,
  ensureChildSnapshot,
  snapshotCommand,
  SNAPSHOT_ENV,
  type ChildCommand,
} from '../../src/supervisor/index.js';

/** The two ways arbor starts its child: from the one-file bundle, and from its start-up snapshot. */
export const CHILD_ENTRIES = ['bundle', 'snapshot'] as const;
export type ChildEntry = (typeof CHILD_ENTRIES)[number];

/**
 * The command that starts the child from `entry`. The snapshot is built into arbor's cache if it
 * is not there yet; a snapshot that cannot be built fails the test, never falls back to the bundle.
 */
export async function entryCommand(entry: ChildEntry): Promise<ChildCommand> {
  if (entry === 'bundle') return childCommand({});
  const state = await ensureChildSnapshot({ ...process.env, [SNAPSHOT_ENV]: undefined });
  if (state.blob === undefined) throw new Error(`no child snapshot: ${String(state.reason)}`);
  return snapshotCommand(state.blob);
}
