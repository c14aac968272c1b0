import { AnthropicErrorBodySchema } from './anthropic-wire.js';
import { AttemptFailure, classifyStatus } from './attempt-failure.js';
import { decodeJson } from './decode-json.js';
import { sendPost, type HeaderReader, type HttpAnswer } from './http-transport.js';
import { OpenAiErrorBodySchema } from './openai-wire.js';
import { parseRetryAfter } from './retry-after.js';

/** How much of an error body is read to find the provider's message. */
const ERROR_BODY_BYTES = 8 * 1024;
/** The largest unstreamed answer accepted. */
export const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;
const MESSAGE_CHARS = 300;

/** `base` + `path`, keeping the base's own path and query (`…/v1?api-version=…`). */
export function joinUrl(base: string, path: string): string {
  const url = new URL(base);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${path}`;
  return url.toString();
}

/**
 * Reads a body as text, up to `limit` bytes. Past the limit the rest is not read (the connection
 * is closed) and `truncated` is set. Reading honours the request's abort signal, since the body is
 * part of the attempt.
 */
export async function readText(
  answer: HttpAnswer,
  limit: number,
): Promise<{ text: string; truncated: boolean }> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of answer.body) {
    chunks.push(chunk);
    size += chunk.byteLength;
    if (size > limit) {
      return { text: Buffer.concat(chunks).subarray(0, limit).toString('utf8'), truncated: true };
    }
  }
  return { text: Buffer.concat(chunks).toString('utf8'), truncated: false };
}

/** The provider's own words from an error body, in either dialect's shape, or the start of the text. */
function providerMessage(text: string): string {
  const decoded = decodeJson(text);
  if (decoded.ok) {
    const openai = OpenAiErrorBodySchema.safeParse(decoded.value);
    if (openai.success) return openai.data.error.message;
    const anthropic = AnthropicErrorBodySchema.safeParse(decoded.value);
    if (anthropic.success) return `${anthropic.data.error.type}: ${anthropic.data.error.message}`;
  }
  return text.replace(/\s+/g, ' ').trim();
}

function clip(text: string): string {
  return text.length > MESSAGE_CHARS ? `${text.slice(0, MESSAGE_CHARS)}…` : text;
}

/** The failure for a non-2xx answer. Never quotes an auth failure's body: providers echo keys. */
async function statusFailure(response: HttpAnswer, now: number): Promise<AttemptFailure> {
  const { status } = response;
  const failureClass = classifyStatus(status);
  const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), now);
  const init = { status, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
  if (failureClass === 'auth') {
    response.cancel();
    return new AttemptFailure('auth', `HTTP ${status}: the endpoint refused the credential`, init);
  }
  if (status < 400) {
    response.cancel();
    return new AttemptFailure(
      'bad_request',
      `HTTP ${status}: the endpoint redirects; configure the address it redirects to`,
      init,
    );
  }
  const { text } = await readText(response, ERROR_BODY_BYTES);
  const said = clip(providerMessage(text));
  return new AttemptFailure(failureClass, `HTTP ${status}${said === '' ? '' : `: ${said}`}`, init);
}

/**
 * Sends one request. Resolves with the response when the status is 2xx; otherwise reads the error
 * and throws an `AttemptFailure`. Redirects are not followed: a redirect would carry the
 * credential to wherever it points. `onHeaders` sees the headers of every response, whatever its
 * status (a 429 carries the provider's rate limits too).
 */
export async function postJson(
  url: string,
  headers: Readonly<Record<string, string>>,
  body: string,
  signal: AbortSignal,
  now: () => number,
  onHeaders?: (headers: HeaderReader) => void,
): Promise<HttpAnswer> {
  const answer = await sendPost(url, { headers, body, signal });
  onHeaders?.(answer.headers);
  if (answer.status >= 200 && answer.status < 300) return answer;
  throw await statusFailure(answer, now());
}
