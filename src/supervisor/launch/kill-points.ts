/**
 * Named points in a run's life where a test can kill the supervisor outright (SIGKILL, as a crash
 * or a power cut would), to check that `arbor resume` continues from what was recorded. Set
 * `ARBOR_TEST_MODE=chaos` and `ARBOR_TEST_KILL_AT=NAME` (the first time the point is reached) or
 * `NAME:N` (the Nth time). Records written so far are flushed first: the kill comes right after
 * the point's record.
 */
export const KILL_POINTS = [
  /** A node was minted and recorded; its child has not started. */
  'spawn-minted',
  /** A node's child said `ready`. */
  'child-ready',
  /** A model call returned and its usage was recorded. */
  'model-call',
  /** A gate (a question for a person) was opened and recorded; nobody has answered it. */
  'gate-open',
  /** A tool call's result was recorded in the caller's transcript. */
  'tool-result',
  /** A child (not the root) ended and its result was recorded. */
  'child-result',
  /** The root ended; its result is about to be written. */
  'root-result',
] as const;
export type KillPoint = (typeof KILL_POINTS)[number];

/**
 * The kill point `env` asks for, or `undefined`. A shipped CLI that SIGKILLs itself because one
 * stray variable was set (left in a shell, inherited from a test) would look like a crash, so
 * `ARBOR_TEST_KILL_AT` counts only beside `ARBOR_TEST_MODE=chaos`, a second variable nobody sets
 * by accident. Plan runs read their own points (`plan.<status>:<id>`) through this too.
 */
export function killAtOf(env: NodeJS.ProcessEnv): string | undefined {
  return env.ARBOR_TEST_MODE === 'chaos' ? env.ARBOR_TEST_KILL_AT : undefined;
}

const spec = parseSpec(killAtOf(process.env));
const reached = new Map<KillPoint, number>();

/**
 * Kills this process if `ARBOR_TEST_KILL_AT` names this point (and this occurrence of it) in
 * chaos test mode.
 */
export function killPoint(name: KillPoint | undefined, store: { flush(): void }): void {
  if (spec === undefined || name !== spec.name) return;
  const count = (reached.get(name) ?? 0) + 1;
  reached.set(name, count);
  if (count !== spec.at) return;
  store.flush();
  process.kill(process.pid, 'SIGKILL');
}

/** The point named, if it is one of these (plan runs have their own: `plan.<status>:<id>`). */
function parseSpec(value: string | undefined): { name: KillPoint; at: number } | undefined {
  const [name = '', at = '1'] = (value ?? '').split(':');
  const point = KILL_POINTS.find((p) => p === name);
  const n = Number(at);
  return point === undefined || !Number.isInteger(n) || n < 1 ? undefined : { name: point, at: n };
}
