import { z } from 'zod';
import { publicKeyProblem } from '../fleet/fleet-identity.js';

const Name = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, { error: 'expected 1–64 letters, digits, `_` or `-`' });

/** A fleet public key as `arbor worker keygen` prints it. */
const PublicKey = z.string().superRefine((text, ctx) => {
  const problem = publicKeyProblem(text);
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
});

/** A private key, named by its file: its value is never written in a config file. */
const KeyFile = z.string().regex(/^file:\/./, {
  error: 'expected `file:/absolute/path`: a private key is never written in the config file',
});

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
  key: KeyFile.optional().describe(
    "The supervisor's private key (`arbor worker keygen` makes one), as `file:/absolute/path`; the file must be mode 0600. `ARBOR_FLEET_PRIVATE_KEY_FILE` wins over it.",
  ),
  admit: z
    .array(
      z.strictObject({
        name: Name.describe("The worker's name, in the run's records (`fleet.assigned`)."),
        public_key: PublicKey.describe('Its public key, as `arbor worker keygen` printed it.'),
      }),
    )
    .optional()
    .superRefine((entries, ctx) => {
      const seen = new Map<string, number>();
      (entries ?? []).forEach((entry, index) => {
        for (const [what, value] of [
          ['name', entry.name],
          ['public_key', entry.public_key],
        ] as const) {
          const first = seen.get(`${what}:${value}`);
          if (first !== undefined)
            ctx.addIssue({
              code: 'custom',
              path: [index, what],
              message: `the same ${what} as \`[[queue.admit]]\` entry ${first + 1}`,
            });
          else seen.set(`${what}:${value}`, index);
        }
      });
    })
    .describe(
      'The workers this supervisor admits: their claims and records are accepted, anyone else’s refused. Read again when the file changes: removing an entry revokes the worker at once.',
    ),
  supervisor: z
    .array(
      z.strictObject({
        public_key: PublicKey.describe(
          "A supervisor's public key, as `arbor worker keygen` printed it.",
        ),
      }),
    )
    .optional()
    .describe(
      '`arbor worker`: the supervisors it serves (with `--supervisor-key`): jobs and control records signed by any other key are refused.',
    ),
  worker: z
    .strictObject({
      key: KeyFile.optional().describe(
        "This worker's private key (`arbor worker keygen`), as `file:/absolute/path`, mode 0600. `--key` and `ARBOR_FLEET_PRIVATE_KEY_FILE` win over it.",
      ),
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
