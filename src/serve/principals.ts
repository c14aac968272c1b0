import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { PrincipalEntry } from '../config/index.js';
import { ArborError } from '../protocol/index.js';
import { writeTokenFile } from './token-file.js';

/** Who a request is, once its bearer token is checked. */
export interface Principal {
  name: string;
  role: 'operator' | 'user';
  /** Runs it may have going at once. */
  maxRuns?: number;
  /** Tokens its runs of the last 24 hours may have used before it may start another. */
  tokensPerDay?: number;
}

/** The principal of a server with none configured: the token made at start. */
const GENERATED = 'operator';

/**
 * The principals of `arbor serve` and their bearer tokens, held as SHA-256 digests: a presented
 * token is hashed and compared with every principal's digest in constant time, so neither the
 * comparison nor its position in the list tells how close a guess was. Tokens are never logged.
 */
export class Principals {
  readonly #entries: { principal: Principal; digest: Buffer }[];
  /** Set when no principal was configured: the operator token made at start. */
  readonly generated: { token: string; file: string | undefined } | undefined;

  private constructor(
    entries: { principal: Principal; digest: Buffer }[],
    generated?: { token: string; file: string | undefined },
  ) {
    this.#entries = entries;
    this.generated = generated;
  }

  get configured(): boolean {
    return this.generated === undefined;
  }

  /**
   * The configured principals, their tokens read from `env`; with none configured, one operator
   * whose token is made now and written (0600) to `tokenFile` when there is one.
   */
  static resolve(
    entries: readonly PrincipalEntry[],
    env: NodeJS.ProcessEnv,
    tokenFile: string | undefined,
  ): Principals {
    if (entries.length === 0) {
      const token = randomBytes(32).toString('base64url');
      if (tokenFile !== undefined) writeTokenFile(tokenFile, `${token}\n`);
      return new Principals(
        [{ principal: { name: GENERATED, role: 'operator' }, digest: digest(token) }],
        {
          token,
          file: tokenFile,
        },
      );
    }
    const names = new Set<string>();
    const resolved = entries.map((entry) => {
      if (names.has(entry.name))
        throw new ArborError('config', `\`[[serve.principal]]\` \`${entry.name}\` is named twice.`);
      names.add(entry.name);
      const variable = entry.token.slice('env:'.length);
      const token = env[variable];
      if (token === undefined || token.length < 16)
        throw new ArborError(
          'config',
          `\`[[serve.principal]]\` \`${entry.name}\`: ${token === undefined ? `\`${variable}\` is not set` : `the token in \`${variable}\` is shorter than 16 characters`}.`,
        );
      const principal: Principal = {
        name: entry.name,
        role: entry.role,
        ...(entry.max_runs === undefined ? {} : { maxRuns: entry.max_runs }),
        ...(entry.tokens_per_day === undefined ? {} : { tokensPerDay: entry.tokens_per_day }),
      };
      return { principal, digest: digest(token) };
    });
    const digests = new Set(resolved.map((entry) => entry.digest.toString('hex')));
    if (digests.size !== resolved.length)
      throw new ArborError('config', 'Two `[[serve.principal]]` entries have the same token.');
    return new Principals(resolved);
  }

  /** The principal of this name, if there is one. */
  byName(name: string): Principal | undefined {
    return this.#entries.find((entry) => entry.principal.name === name)?.principal;
  }

  /** The principal an `Authorization: Bearer …` header names, or undefined (anonymous). */
  authenticate(authorization: string | undefined): Principal | undefined {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    if (match?.[1] === undefined) return undefined;
    const presented = digest(match[1]);
    let found: Principal | undefined;
    // Every digest is compared, whatever matched first.
    for (const entry of this.#entries)
      if (timingSafeEqual(presented, entry.digest)) found ??= entry.principal;
    return found;
  }
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}
