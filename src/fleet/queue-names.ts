import { ArborError } from '../protocol/index.js';

/** The queue jobs go to when nothing else is named. */
export const DEFAULT_QUEUE = 'arbor';

/** Most labels one worker may carry: it listens on a queue for each subset of them. */
export const MAX_WORKER_LABELS = 4;

const NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Checks a queue name or a label: letters, digits, `_` and `-`. */
export function checkName(value: string, what: string): string {
  if (!NAME.test(value))
    throw new ArborError(
      'usage',
      `Expected ${what} to be 1–64 letters, digits, \`_\` or \`-\`, got \`${value}\`.`,
    );
  return value;
}

/**
 * The queue for jobs that need `labels`: the base queue, or one named by the sorted set
 * (`arbor.gpu+rust`). A worker takes a job when it has every label the job needs.
 */
export function queueFor(base: string, labels: readonly string[]): string {
  const set = [...new Set(labels)].sort();
  return set.length === 0 ? base : `${base}.${set.join('+')}`;
}

/** Every queue a worker with `labels` listens on: one for each subset of its labels. */
export function queuesOf(base: string, labels: readonly string[]): string[] {
  const set = [...new Set(labels)].sort();
  if (set.length > MAX_WORKER_LABELS)
    throw new ArborError(
      'usage',
      `A worker takes at most ${MAX_WORKER_LABELS} labels, got ${set.length}: ${set.join(', ')}.`,
    );
  const queues: string[] = [];
  for (let mask = 0; mask < 1 << set.length; mask++)
    queues.push(
      queueFor(
        base,
        set.filter((_, i) => (mask & (1 << i)) !== 0),
      ),
    );
  return queues;
}
