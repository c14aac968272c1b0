import { z } from 'zod';
import { DialectSchema } from '../../protocol/index.js';

/**
 * One request the fake server received, as tests read it (in process, or as JSON from
 * `GET /__arbor/requests`). Credential header values are redacted before it is recorded.
 */
export const RecordedRequestSchema = z.object({
  /** 1-based arrival order. */
  seq: z.number().int().positive(),
  /** Arrival time, milliseconds since the epoch. */
  at: z.number(),
  method: z.string(),
  path: z.string(),
  /** The dialect of the path, when it is a model endpoint. */
  dialect: DialectSchema.nullable(),
  headers: z.record(z.string(), z.string()),
  /** The decoded JSON body, or `null` when there was none or it was not JSON. */
  body: z.unknown(),
  /** Which connection carried it: compare with `waitForSocketClose`. */
  socket: z.number().int().positive(),
  /** The script that answered (index into `scripts`, and its name), if one matched. */
  script: z
    .object({ index: z.number().int().nonnegative(), name: z.string().nullable() })
    .nullable(),
  /** The step that answered. */
  step: z.number().int().nonnegative().nullable(),
  /** Tool results the conversation held. */
  tool_results: z.number().int().nonnegative().nullable(),
  stream: z.boolean(),
  /** The status sent, or `null` while pending and for `reset` and `hang`. */
  status: z.number().int().nullable(),
  /** The fault played: `status`, `malformed`, `reset`, `hang`, `cut` or `rate_limit` (a 429 of the playbook's `rate_limit`). */
  fault: z.string().nullable(),
  /** Why the server could not answer from the playbook (no script matched, invalid body). */
  error: z.string().nullable(),
});
export type RecordedRequest = z.infer<typeof RecordedRequestSchema>;
