import { createHmac, timingSafeEqual } from 'node:crypto';
import { ArborError } from '../protocol/index.js';

/** The variable the supervisor and every worker read the fleet key from. */
export const FLEET_KEY_VARIABLE = 'ARBOR_FLEET_KEY';

/** A MAC as `sign` writes it: 64 lowercase hex digits, nothing else. */
const MAC_TEXT = /^[0-9a-f]{64}$/;

/** Shortest key accepted: 32 characters (e.g. `openssl rand -hex 32` gives 64). */
const MIN_KEY_CHARS = 32;

/**
 * The secret the supervisor and its workers share. Every job and every relayed frame carries an
 * HMAC-SHA256 under it, bound to where the text belongs (a job id, a stream and a sequence
 * number), so write access to Redis alone can neither drive a worker nor pose as a child. The key
 * itself never enters Redis.
 */
export class FleetKey {
  readonly #key: Buffer;

  private constructor(key: Buffer) {
    this.#key = key;
  }

  /** The key from `ARBOR_FLEET_KEY`; refuses to go on without one, or with a short one. */
  static fromEnv(env: Readonly<Record<string, string | undefined>>): FleetKey {
    const raw = env[FLEET_KEY_VARIABLE];
    if (raw === undefined || raw === '')
      throw new ArborError(
        'config',
        `The fleet needs a shared key: set \`${FLEET_KEY_VARIABLE}\` (at least ${MIN_KEY_CHARS} characters, e.g. \`openssl rand -hex 32\`) for the supervisor and every worker.`,
      );
    if (raw.length < MIN_KEY_CHARS)
      throw new ArborError(
        'config',
        `Expected \`${FLEET_KEY_VARIABLE}\` to hold at least ${MIN_KEY_CHARS} characters, got ${raw.length}.`,
      );
    return new FleetKey(Buffer.from(raw, 'utf8'));
  }

  /** The MAC of `text` in `scope` (what it belongs to), as hex. */
  sign(scope: string, text: string): string {
    return createHmac('sha256', this.#key).update(scope).update('\n').update(text).digest('hex');
  }

  /** Whether `mac` is the MAC of `text` in `scope`; compared in constant time. */
  verify(scope: string, text: string, mac: string): boolean {
    if (!MAC_TEXT.test(mac)) return false;
    const expected = Buffer.from(this.sign(scope, text), 'hex');
    const given = Buffer.from(mac, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}
