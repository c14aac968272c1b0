import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The fake's stand-in for OpenAI's encrypted reasoning: opaque to clients, checkable by the fake.
 * A blob is one byte of version, an HMAC-SHA256 of the payload under a key the server made at
 * start, and the payload (the reasoning item's id and the model that thought it, a line each),
 * all in base64.
 * A byte changed anywhere, or a blob from another server, does not open.
 */

const VERSION = 0x80;
const MAC_BYTES = 32;

/** What a blob holds: the reasoning item's id and the model that thought it. */
export interface Sealed {
  id: string;
  model: string;
}

export class ReasoningSeal {
  readonly #key = randomBytes(32);

  seal(payload: Sealed): string {
    const body = Buffer.from(`${payload.id}\n${payload.model}`, 'utf8');
    return Buffer.concat([Buffer.from([VERSION]), this.#mac(body), body]).toString('base64');
  }

  /** The payload of a blob this server sealed, or `undefined` for anything else. */
  open(blob: string): Sealed | undefined {
    const bytes = Buffer.from(blob, 'base64');
    // Base64 decoding skips characters it does not know: a blob must re-encode to itself.
    if (bytes.toString('base64') !== blob || bytes.length <= 1 + MAC_BYTES) return undefined;
    if (bytes[0] !== VERSION) return undefined;
    const mac = bytes.subarray(1, 1 + MAC_BYTES);
    const body = bytes.subarray(1 + MAC_BYTES);
    if (!timingSafeEqual(mac, this.#mac(body))) return undefined;
    const [id, model, ...rest] = body.toString('utf8').split('\n');
    return id === undefined || model === undefined || rest.length > 0 ? undefined : { id, model };
  }

  #mac(body: Buffer): Buffer {
    return createHmac('sha256', this.#key).update(body).digest();
  }
}
