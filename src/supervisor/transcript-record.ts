import { configSecrets } from '../intel/scrub.js';
import {
  scrubSecrets,
  ChildTranscriptEntrySchema,
  type SpawnPayload,
  type ChildTranscriptEntry,
  type Outcome,
  type TranscriptEntry,
} from '../protocol/index.js';

/**
 * A node's transcript as it is recorded: each change the child reports, checked against the
 * schema and passed through the one secret scrubber (the node's own credentials verbatim, anything
 * credential-shaped whoever's it is) before it reaches the store.
 */
export class TranscriptRecord {
  readonly #secrets: string[];

  constructor(payload: SpawnPayload) {
    this.#secrets = payloadSecrets(payload);
  }

  /** The entry to store, or a reason it is not one. */
  read(fields: unknown): { entry: ChildTranscriptEntry } | { invalid: string } {
    // A child reports its messages; only the supervisor marks a turn as announced.
    const parsed = ChildTranscriptEntrySchema.safeParse(fields);
    if (!parsed.success) return { invalid: parsed.error.issues[0]?.message ?? 'invalid entry' };
    return { entry: scrubDeep(parsed.data, this.#secrets) };
  }

  /** The mark of a turn whose answer reached the supervisor, its outcome scrubbed the same way. */
  turn(outcome: Outcome): TranscriptEntry {
    return { op: 'turn', outcome: scrubDeep(outcome, this.#secrets) };
  }
}

/** Every credential value a payload carries: endpoint keys and headers, MCP headers and env. */
export function payloadSecrets(payload: SpawnPayload): string[] {
  const out = configSecrets(payload.intelligence);
  for (const server of payload.mcp_servers) {
    out.push(...Object.values(server.headers), ...Object.values(server.env));
  }
  for (const peer of payload.a2a_peers) out.push(...Object.values(peer.headers));
  return out.filter((value): value is string => typeof value === 'string');
}

function scrubDeep<T>(value: T, secrets: readonly string[]): T {
  if (typeof value === 'string') return scrubSecrets(value, secrets) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => scrubDeep(item, secrets)) as T;
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = scrubDeep(item, secrets);
    return out as T;
  }
  return value;
}
