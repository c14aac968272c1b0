import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { parseNetEntry } from '../authority/index.js';
import {
  ArborError,
  MIN_SECRET_LENGTH,
  netCredentialSecrets,
  type NetCredential,
} from '../protocol/index.js';

/** An HTTP header name (a token, RFC 9110 §5.6.2). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Headers a credential may not be: the connection's own (hop-by-hop, RFC 9110 §7.6.1, and the
 * proxy's) and those arbor sets from the URL and the body.
 */
const REFUSED_HEADERS: ReadonlySet<string> = new Set([
  'host',
  'content-length',
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

const ENV_REF = /^env:([A-Za-z_][A-Za-z0-9_]*)$/;
const FILE_REF = /^file:(.+)$/;

/** Why a host cannot carry a credential, or `undefined` when it can. */
function hostProblem(text: string): string | undefined {
  const entry = parseNetEntry(text);
  if (typeof entry === 'string') return entry;
  if (entry.wildcard)
    return `\`${text}\`: a credential names one host exactly, not a wildcard (each host it is sent to is named)`;
  return undefined;
}

function headerProblem(text: string): string | undefined {
  if (!HEADER_NAME.test(text))
    return `expected an HTTP header name such as \`authorization\`, got \`${text}\``;
  if (REFUSED_HEADERS.has(text.toLowerCase()))
    return `\`${text}\` is a connection header (hop-by-hop, or set by arbor from the URL and body): a credential cannot be one`;
  return undefined;
}

/** A refinement whose problem is a sentence of its own: a custom issue shows no input. */
function check(problem: (text: string) => string | undefined) {
  return (text: string, ctx: z.RefinementCtx): void => {
    const message = problem(text);
    if (message !== undefined) ctx.addIssue({ code: 'custom', message });
  };
}

const NetCredentialTable = z.strictObject({
  host: z
    .string()
    .superRefine(check(hostProblem))
    .describe('The host it is sent to, exactly: a name or address, optionally `:PORT`.'),
  header: z
    .string()
    .superRefine(check(headerProblem))
    .describe('The request header it is sent as, such as `authorization`.'),
  // Refined, not a pattern: a pattern's error would echo a literal secret written here.
  value: z
    .string()
    .superRefine(
      check((text) =>
        ENV_REF.test(text) || (FILE_REF.test(text) && path.isAbsolute(text.slice(5)))
          ? undefined
          : 'expected `env:NAME` or `file:/absolute/path`; a credential is never written in the file',
      ),
    )
    .describe(
      'Where the value comes from: `env:NAME` (the environment of the process that opens the runtime) or `file:/absolute/path` (its trailing newline trimmed).',
    ),
});
type NetCredentialTable = z.infer<typeof NetCredentialTable>;

/** `[net]`: what `http.fetch` adds to requests. */
export const NetTableSchema = z
  .strictObject({
    credential: z
      .array(NetCredentialTable)
      .superRefine((tables, ctx) => {
        const seen = new Map<string, number>();
        tables.forEach((table, index) => {
          const entry = parseNetEntry(table.host);
          if (typeof entry === 'string') return;
          const key = `${entry.host} ${table.header.toLowerCase()}`;
          const first = seen.get(key);
          if (first === undefined) seen.set(key, index);
          else
            ctx.addIssue({
              code: 'custom',
              path: [index, 'header'],
              message: `\`${table.header}\` of \`${entry.host}\` is given already, by table ${first}: give each header of a host once`,
            });
        });
      })
      .optional()
      .describe(
        '`[[net.credential]]`: a header `http.fetch` adds to requests for one host; the model never sees it.',
      ),
  })
  .describe('Credentials brokered at the boundary: `http.fetch` adds them; models never see them.');

/**
 * The credentials of `[[net.credential]]` tables, each value read from `env` or its file now, by
 * the process that opens the runtime. Every table that cannot be resolved is a problem naming its
 * index and why (never the value): an unset or empty variable, a file that cannot be read, a value
 * too short to be scrubbed, one that cannot be a header value. Thrown as one `config` error
 * listing them, as `validateAll` reports.
 */
export function resolveNetCredentials(
  tables: readonly NetCredentialTable[],
  env: NodeJS.ProcessEnv,
  source: string,
): NetCredential[] {
  const problems: string[] = [];
  const out: NetCredential[] = [];
  tables.forEach((table, index) => {
    const where = `${source}: \`net.credential[${index}].value\``;
    const entry = parseNetEntry(table.host);
    if (typeof entry === 'string' || entry.wildcard) {
      problems.push(`${source}: \`net.credential[${index}].host\`: ${hostProblem(table.host)}`);
      return;
    }
    const read = readValue(table.value, env);
    if (!read.ok) {
      problems.push(`${where}: ${read.problem}`);
      return;
    }
    const credential: NetCredential = {
      host: entry.host,
      ...(entry.port === undefined ? {} : { port: entry.port }),
      header: table.header.toLowerCase(),
      value: read.value,
    };
    const problem = valueProblem(credential);
    if (problem === undefined) out.push(credential);
    else problems.push(`${where}: ${problem}`);
  });
  if (problems.length > 0)
    throw new ArborError('config', problems.join('; '), { details: { problems } });
  return out;
}

type Read = { ok: true; value: string } | { ok: false; problem: string };

function readValue(reference: string, env: NodeJS.ProcessEnv): Read {
  const name = ENV_REF.exec(reference)?.[1];
  if (name !== undefined) {
    const value = env[name];
    if (value === undefined || value === '')
      return { ok: false, problem: `the environment variable \`${name}\` is not set` };
    return { ok: true, value };
  }
  const file = FILE_REF.exec(reference)?.[1];
  if (file === undefined || !path.isAbsolute(file))
    return {
      ok: false,
      problem:
        'expected `env:NAME` or `file:/absolute/path`; a credential is never written in the file',
    };
  try {
    return { ok: true, value: readFileSync(file, 'utf8').replace(/(\r?\n)+$/, '') };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    return { ok: false, problem: `cannot read ${file} (${code})` };
  }
}

/** Why a resolved value cannot be sent and kept secret, or `undefined` when it can. */
function valueProblem(credential: NetCredential): string | undefined {
  if (credential.value === '') return 'the value is empty';
  if (/[\r\n\0]/.test(credential.value))
    return 'the value holds a line break or NUL, which no header value may';
  // The scrubber ignores shorter values: a credential it could not find must not be sent.
  if (netCredentialSecrets([credential]).some((form) => form.length < MIN_SECRET_LENGTH))
    return `the value is shorter than ${MIN_SECRET_LENGTH} characters (without its scheme word), too short to be told apart from ordinary text and scrubbed`;
  return undefined;
}
