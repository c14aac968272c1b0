import { z } from 'zod';

const Name = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, { error: 'expected 1–64 letters, digits, `_` or `-`' });

/**
 * `[queue]`: the fleet of workers on Redis (BullMQ). The supervisor's side names the Redis, the
 * queue and the labels its jobs need; `[queue.worker]` is read by `arbor worker`.
 */
export const QueueTableSchema = z.strictObject({
  redis: z
    .string()
    .min(1)
    .optional()
    .describe(
      'The Redis the fleet meets on: `env:NAME` (a variable holding the URL, password and all), or a `redis://` / `rediss://` URL without a password. `ARBOR_REDIS_URL` wins over it, `--redis` over both.',
    ),
  queue: Name.optional().describe('The base queue name (default `arbor`).'),
  labels: z
    .array(Name)
    .max(4)
    .optional()
    .describe('Labels every job needs: only workers that have them all take it.'),
  attempts: z
    .number()
    .int()
    .min(1)
    .max(10)
    .optional()
    .describe(
      'Attempts in all for a node whose worker is lost, before it ends crashed (default 3).',
    ),
  worker: z
    .strictObject({
      workspace: z
        .string()
        .min(1)
        .optional()
        .describe("The nodes' working directory on this worker (default: where it starts)."),
      concurrency: z
        .number()
        .int()
        .min(1)
        .max(1024)
        .optional()
        .describe('Children this worker runs at once (default 4).'),
      pool: z
        .number()
        .int()
        .min(0)
        .max(1024)
        .optional()
        .describe('Children kept started and loaded, waiting for a node (default 2).'),
      labels: z
        .array(Name)
        .max(4)
        .optional()
        .describe('What this worker has: it takes jobs needing any subset of these.'),
    })
    .optional()
    .describe('`arbor worker`: how this machine takes jobs.'),
});
export type QueueTable = z.infer<typeof QueueTableSchema>;
