import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign,
  verify,
  type KeyObject,
} from 'node:crypto';
import { ArborError } from '../protocol/index.js';

/** How a fleet public key is written: this prefix, then the key's 32 raw bytes in base64. */
const PUBLIC_KEY_PREFIX = 'ed25519:';

/** The shared HMAC key of arbor before 0.2, refused now with a word on what to do instead. */
export const RETIRED_FLEET_KEY_VARIABLE = 'ARBOR_FLEET_KEY';

const RAW_BYTES = 32;
/** An Ed25519 signature in base64: 64 bytes. */
const SIGNATURE_TEXT = /^[A-Za-z0-9+/]{86}==$/;

/**
 * The public half of a fleet identity (a supervisor's or a worker's), as an operator writes it in
 * a config file: `ed25519:` and the 32 raw bytes in base64 (44 characters). Its `id` is the first
 * 16 hex digits of the SHA-256 of those bytes: short enough for a log line, and what every signed
 * entry names so the reader knows which key to check it with.
 */
export class FleetPublicKey {
  readonly id: string;
  readonly text: string;
  readonly #key: KeyObject;

  private constructor(key: KeyObject) {
    const raw = rawOf(key);
    this.#key = key;
    this.text = `${PUBLIC_KEY_PREFIX}${raw.toString('base64')}`;
    this.id = createHash('sha256').update(raw).digest('hex').slice(0, 16);
  }

  /** A key as written (`ed25519:…`); anything else is a config error that says what was expected. */
  static parse(text: string): FleetPublicKey {
    const problem = publicKeyProblem(text);
    if (problem !== undefined) throw new ArborError('config', problem);
    const raw = Buffer.from(text.slice(PUBLIC_KEY_PREFIX.length), 'base64');
    return new FleetPublicKey(
      createPublicKey({
        key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') },
        format: 'jwk',
      }),
    );
  }

  /** @internal The public half of a private key. */
  static of(privateKey: KeyObject): FleetPublicKey {
    return new FleetPublicKey(createPublicKey(privateKey));
  }

  /** Whether `signature` is this key's signature of `text` in `scope`. */
  verify(scope: string, text: string, signature: string): boolean {
    if (!SIGNATURE_TEXT.test(signature)) return false;
    return verify(null, signed(scope, text), this.#key, Buffer.from(signature, 'base64'));
  }
}

/** Why `text` is not a fleet public key, or `undefined` when it is one. */
export function publicKeyProblem(text: string): string | undefined {
  const shown = text.length > 60 ? `${text.slice(0, 60)}…` : text;
  if (!text.startsWith(PUBLIC_KEY_PREFIX))
    return `Expected a fleet public key as \`arbor worker keygen\` prints it (\`ed25519:\` and 44 base64 characters), got \`${shown}\`.`;
  const body = text.slice(PUBLIC_KEY_PREFIX.length);
  const raw = Buffer.from(body, 'base64');
  if (raw.length !== RAW_BYTES || raw.toString('base64') !== body)
    return `Expected a fleet public key to hold ${RAW_BYTES} bytes in base64 after \`ed25519:\`, got \`${shown}\`.`;
  return undefined;
}

/**
 * A fleet identity: an Ed25519 key pair. The supervisor signs its jobs and everything it sends
 * down to a node with its own; each worker signs what it sends up with its own. Only the public
 * half is ever written anywhere but the private key's file.
 */
export class FleetIdentity {
  readonly publicKey: FleetPublicKey;
  readonly #key: KeyObject;

  private constructor(key: KeyObject) {
    this.#key = key;
    this.publicKey = FleetPublicKey.of(key);
  }

  /** A new key pair, and its private half as PKCS#8 PEM (what a key file holds). */
  static generate(): { identity: FleetIdentity; pem: string } {
    const { privateKey } = generateKeyPairSync('ed25519');
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    return { identity: new FleetIdentity(privateKey), pem };
  }

  /** The identity a PEM private key holds; `where` names it in the error when it is not one. */
  static fromPem(pem: string, where: string): FleetIdentity {
    let key: KeyObject;
    try {
      key = createPrivateKey({ key: pem, format: 'pem' });
    } catch {
      throw new ArborError(
        'config',
        `Expected ${where} to hold a private key in PEM (as \`arbor worker keygen\` writes it), got something else.`,
      );
    }
    if (key.asymmetricKeyType !== 'ed25519')
      throw new ArborError(
        'config',
        `Expected ${where} to hold an Ed25519 private key, got a ${key.asymmetricKeyType ?? 'unknown'} one.`,
      );
    return new FleetIdentity(key);
  }

  /** This identity's signature of `text` in `scope` (what it belongs to), in base64. */
  sign(scope: string, text: string): string {
    return sign(null, signed(scope, text), this.#key).toString('base64');
  }

  /**
   * The private key as text would show it (its PKCS#8 body in base64, and its raw seed): what a
   * run must never print, should a model read the key's file.
   */
  secretForms(): string[] {
    const der = this.#key.export({ type: 'pkcs8', format: 'der' });
    const seed = this.#key.export({ format: 'jwk' }).d ?? '';
    return [der.toString('base64'), Buffer.from(seed, 'base64url').toString('base64'), seed];
  }
}

function signed(scope: string, text: string): Buffer {
  return Buffer.from(`${scope}\n${text}`, 'utf8');
}

function rawOf(key: KeyObject): Buffer {
  const x = key.export({ format: 'jwk' }).x;
  if (x === undefined) throw new ArborError('internal', 'an Ed25519 public key without its bytes');
  return Buffer.from(x, 'base64url');
}
