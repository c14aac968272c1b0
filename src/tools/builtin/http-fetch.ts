import { z } from 'zod';
import {
  credentialsFor,
  formatNetEntry,
  grantsNet,
  type ToolTrifecta,
} from '../../authority/index.js';
import {
  netCredentialSecrets,
  SecretScrubber,
  type NetCredential,
  type Scope,
  type TrifectaTag,
} from '../../protocol/index.js';
import { toolError, toolRefusal, type Tool, type ToolOutput } from '../tool.js';
import type { BuiltinContext, BuiltinLimits } from './builtin-context.js';
import {
  checkEgress,
  describeNet,
  resolveWithDns,
  type ResolveHost,
} from '../egress/egress-policy.js';
import { fetchPinned, type PinnedResponse } from './fetch-pinned.js';
import { ArgsCache, inputSchema, parseToolArgs } from './tool-args.js';

const NAME = 'http.fetch';
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;
const MAX_REDIRECTS = 5;
/** Headers a caller may not set: the connection's own, which arbor sets from the URL. */
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'connection',
  'transfer-encoding',
  'upgrade',
]);
const TEXT_TYPE =
  /^(text\/|application\/([\w.+-]*\+)?(json|xml|javascript|x-www-form-urlencoded|yaml|toml|graphql)\b)/i;

/** What `http.fetch` brings: outside content (`untrusted_input`) and a way out (`egress`). */
export const HTTP_FETCH_TAGS: readonly TrifectaTag[] = ['untrusted_input', 'egress'];

/**
 * What `http.fetch` declares to the trifecta: its tags, judged by the runtime trifecta on what a
 * node has actually read, not by the static check at spawn: a node with `fs.read` and
 * `http.fetch` starts.
 */
const HTTP_FETCH_TRIFECTA: ToolTrifecta = { tags: HTTP_FETCH_TAGS, runtimeOnly: true };

/**
 * `http.fetch`: one HTTP request, governed by the `net` caveat. The host (and port) must be in
 * `net`; its name is resolved once and the connection goes to the address that was checked;
 * loopback, private, link-local (cloud metadata) and other non-public addresses are refused
 * unless a `net` entry names that host or address exactly; every redirect is checked again. The
 * answer is text with its status and content type, cut at a size limit, within a time limit.
 * A request (each hop of a redirect alike) to a host with a credential (`net_credentials`) carries
 * its header, set here: the model never sees the value, may not set that header itself, and gets
 * the answer scrubbed of it. Offered only when `net` grants something.
 */
export function httpFetchTool(
  context: BuiltinContext,
  resolve: ResolveHost = resolveWithDns,
): Tool {
  const { limits, caveats } = context;
  const Args = argsFor(limits);
  return {
    def: {
      name: NAME,
      description:
        `Fetch a URL over HTTP(S) and return the status, content type and body as text (at most ` +
        `${limits.fetchMaxBytes / 1024} KiB). Reachable hosts: ${describeNet(caveats.net)}.` +
        describeCredentials(context.netCredentials),
      input_schema: inputSchema(Args),
    },
    trifecta: HTTP_FETCH_TRIFECTA,
    run: async (raw, { signal }) => {
      const parsed = parseToolArgs(NAME, Args, raw);
      if (!parsed.ok) return toolRefusal(parsed.message);
      const sent: NetCredential[] = [];
      const output = await fetchWithRedirects(parsed.args, {
        signal,
        limits,
        net: caveats.net,
        named: context.namedHosts,
        resolve,
        credentials: context.netCredentials,
        sent,
      });
      // The server may echo what it was sent: its answer loses the values (and any look-alike).
      if (sent.length === 0) return output;
      const scrubber = new SecretScrubber(netCredentialSecrets(sent));
      return { ...output, content: scrubber.deep(output.content) };
    },
  };
}

type FetchArgs = z.output<ReturnType<typeof buildArgs>>;

/**
 * The argument schema, one per set of limits: its JSON Schema is generated once and shared, so a
 * pooled child does not generate it again when it is taken.
 */
const argsByLimits = new ArgsCache<ReturnType<typeof buildArgs>>();

function argsFor(limits: BuiltinLimits): ReturnType<typeof buildArgs> {
  const key = `${limits.fetchMaxBytes}/${limits.fetchMaxTimeoutMs}/${limits.fetchTimeoutMs}`;
  return argsByLimits.get(key, () => buildArgs(limits));
}

function buildArgs(limits: BuiltinLimits) {
  return z.strictObject({
    url: z.string().min(1).describe('The http:// or https:// URL to fetch.'),
    method: z.enum(METHODS).optional().describe('HTTP method (default GET).'),
    headers: z.record(z.string(), z.string()).optional().describe('Request headers.'),
    body: z.string().max(limits.fetchMaxBytes).optional().describe('Request body, as text.'),
    timeout_ms: z
      .number()
      .int()
      .min(1)
      .max(limits.fetchMaxTimeoutMs)
      .optional()
      .describe(
        `Time limit in milliseconds, redirects included (default ${limits.fetchTimeoutMs}).`,
      ),
  });
}

interface FetchContext {
  signal: AbortSignal;
  limits: BuiltinLimits;
  net: Scope;
  /** The hosts the operator named exactly: the only ones that may resolve to a private address. */
  named: readonly string[];
  resolve: ResolveHost;
  credentials: readonly NetCredential[];
  /** The credentials this call has sent so far, on any hop. */
  sent: NetCredential[];
}

/** One call: each hop checked against `net` and the address guard, redirects followed. */
async function fetchWithRedirects(args: FetchArgs, context: FetchContext): Promise<ToolOutput> {
  const { signal, limits } = context;
  const reserved = Object.keys(args.headers ?? {}).find((h) =>
    RESERVED_HEADERS.has(h.toLowerCase()),
  );
  if (reserved !== undefined)
    return toolRefusal(
      `\`${NAME}\` refused: the \`${reserved}\` header is set by arbor, not by a call.`,
    );
  const timeoutMs = args.timeout_ms ?? limits.fetchTimeoutMs;
  const deadline = AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
  let method: string = args.method ?? 'GET';
  let body = args.body;
  let url: URL;
  try {
    url = new URL(args.url);
  } catch {
    return toolRefusal(`\`${NAME}\`: \`${args.url}\` is not a URL.`);
  }
  const { host, port } = hostPortOf(url);
  const held = new Set(credentialsFor(context.credentials, host, port).map((c) => c.header));
  const claimed = Object.keys(args.headers ?? {}).find((h) => held.has(h.toLowerCase()));
  if (claimed !== undefined)
    return toolRefusal(
      `\`${NAME}\` refused: the \`${claimed}\` header of ${host}:${port} is a credential arbor adds, not set by a call.`,
    );
  const hops: string[] = [];
  for (let hop = 0; ; hop += 1) {
    const target = await checkTarget(url, context);
    if (!target.ok) {
      const from = hops.length > 0 ? ` (redirected from ${hops.join(' → ')})` : '';
      // Refused before any contact, the text is arbor's; after a redirect, the source chose where
      // to send the call, so the answer counts as the source's (fenced, and it exposes the agent).
      const message = `\`${NAME}\` refused: ${target.reason}${from}.`;
      return hops.length === 0 ? toolRefusal(message) : toolError(message);
    }
    // Only where this hop's host is the credential's: a redirect elsewhere never carries it.
    const here = hostPortOf(url);
    const carried = credentialsFor(context.credentials, here.host, here.port);
    context.sent.push(...carried);
    let response: PinnedResponse;
    try {
      response = await fetchPinned({
        url,
        address: target.address,
        family: target.family,
        method,
        headers: requestHeaders(args.headers, carried),
        body,
        maxBytes: limits.fetchMaxBytes,
        signal: deadline,
      });
    } catch (error) {
      signal.throwIfAborted();
      if (deadline.aborted)
        return toolError(`\`${NAME}\`: ${url.href} did not answer within ${timeoutMs} ms.`);
      const why = error instanceof Error ? error.message : String(error);
      return toolError(`\`${NAME}\`: ${url.href} failed: ${why}.`);
    }
    const location = response.headers.location;
    if (response.status < 300 || response.status >= 400 || location === undefined)
      return render(method, url, response, hops);
    if (hop >= MAX_REDIRECTS)
      return toolError(`\`${NAME}\`: more than ${MAX_REDIRECTS} redirects from ${args.url}.`);
    hops.push(url.href);
    url = new URL(location, url);
    // As browsers do: 303, and 301/302 after a POST, become a GET without a body.
    const moved = response.status === 301 || response.status === 302;
    const toGet = response.status === 303 || (moved && method === 'POST');
    if (toGet) {
      method = 'GET';
      body = undefined;
    }
  }
}

type Target = { ok: true; address: string; family: 4 | 6 } | { ok: false; reason: string };

/** The address to connect to, if `net` allows this URL; otherwise why not. */
async function checkTarget(
  url: URL,
  { net, named, resolve }: Pick<FetchContext, 'net' | 'named' | 'resolve'>,
): Promise<Target> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { ok: false, reason: `\`${url.protocol}\` URLs are not fetched, only http: and https:` };
  if (url.username !== '' || url.password !== '')
    return { ok: false, reason: 'a URL with a user name or password in it is not fetched' };
  const { host, port } = hostPortOf(url);
  const decision = await checkEgress(host, port, { net, named, resolve });
  return decision.ok ? decision : { ok: false, reason: decision.why };
}

/** A URL's host (IPv6 without brackets) and port (the scheme's default when none is written). */
function hostPortOf(url: URL): { host: string; port: number } {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return {
    host,
    port: url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port),
  };
}

/** The call's headers, those a credential of this hop sets replaced by the credential. */
function requestHeaders(
  given: Readonly<Record<string, string>> | undefined,
  carried: readonly NetCredential[],
): Record<string, string> {
  const taken = new Set(carried.map((c) => c.header));
  const own = Object.entries(given ?? {}).filter(([name]) => !taken.has(name.toLowerCase()));
  return {
    'user-agent': 'arbor http.fetch',
    ...Object.fromEntries(own),
    ...Object.fromEntries(carried.map((c) => [c.header, c.value])),
  };
}

function render(
  method: string,
  url: URL,
  response: PinnedResponse,
  hops: readonly string[],
): ToolOutput {
  const type = response.headers['content-type'] ?? '';
  const lines = [
    `HTTP ${response.status} ${response.statusText}`.trim(),
    `content-type: ${type || 'none'}`,
  ];
  if (hops.length > 0) lines.push(`redirected: ${[...hops, url.href].join(' → ')}`);
  let text: string;
  if (method === 'HEAD' || response.body.length === 0) text = '(no body)';
  else if (type === '' || TEXT_TYPE.test(type)) text = decode(response.body, type);
  else text = `[${response.body.length} bytes of ${type}, not text: not shown]`;
  if (response.truncated) lines.push(`[the body was cut after ${response.body.length} bytes]`);
  lines.push('', text);
  return {
    content: lines.join('\n'),
    isError: false,
    source: `${NAME} ${method} ${url.href} → ${response.status}${type === '' ? '' : ` ${type.split(';')[0] ?? ''}`}`,
  };
}

function decode(body: Buffer, type: string): string {
  const charset = /charset=["']?([\w-]+)/i.exec(type)?.[1] ?? 'utf-8';
  try {
    return new TextDecoder(charset).decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

/** What the model is told of its credentials: hosts and headers, never a value. */
function describeCredentials(credentials: readonly NetCredential[]): string {
  if (credentials.length === 0) return '';
  const list = credentials.map(
    (c) => `\`${c.header}\` for ${formatNetEntry({ host: c.host, port: c.port, wildcard: false })}`,
  );
  return ` arbor adds these credentials itself (never set them): ${list.join(', ')}.`;
}

/** Whether `http.fetch` is offered: only when `net` grants something. */
export function offersFetch(net: Scope): boolean {
  return grantsNet(net);
}
