import type { Context, MiddlewareHandler } from 'hono';
import { nestsDeeperThan } from '../protocol/index.js';

/** The largest request body a server takes unless configured otherwise: 4 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

/**
 * How deep a request body may nest objects and arrays. Below the protocol's `MAX_FRAME_DEPTH`
 * (100), so a body that passes still fits, wrapped, in the frame that carries it to an agent.
 */
export const MAX_BODY_DEPTH = 64;

/** Why a body was turned away, for the route's own error shape. */
interface BodyRefusal {
  status: 400 | 413;
  message: string;
}

export interface BodyLimitOptions {
  maxBytes: number;
  /** The setting that raises the limit, named in the refusal (`[serve] max_body_bytes`). */
  setting?: string;
  /** The response to a refused body (a JSON-RPC error on the JSON-RPC endpoint). */
  refuse(c: Context, refusal: BodyRefusal): Response;
}

/**
 * Bounds every request body, the caller's fault when it is past a bound: a declared
 * `Content-Length` over the limit is refused before a byte is read; a body without one is read
 * chunk by chunk and refused as soon as it passes the limit (never held whole first); a body
 * within the limit that nests deeper than `MAX_BODY_DEPTH` is refused before anyone parses it.
 * A refusal closes the connection, so the rest of an oversized body is never read.
 *
 * A body that passes is held (at most `maxBytes`) and handed on as the request's body: routes
 * read it as usual.
 */
export function bodyLimit(options: BodyLimitOptions): MiddlewareHandler {
  const { maxBytes } = options;
  const limit = `${describeBytes(maxBytes)}${options.setting === undefined ? '' : `, \`${options.setting}\``}`;
  const tooLarge = (c: Context, size: string): Response =>
    closing(
      options.refuse(c, {
        status: 413,
        message: `Expected a request body of at most ${limit}, got ${size}.`,
      }),
    );
  return async (c, next) => {
    const raw = c.req.raw;
    if (raw.method === 'GET' || raw.method === 'HEAD' || raw.body === null) return next();
    const declared = raw.headers.get('content-length');
    if (declared !== null && !raw.headers.has('transfer-encoding') && Number(declared) > maxBytes)
      return tooLarge(c, `${declared} bytes (its Content-Length)`);
    const bytes = await readAtMost(raw.body, maxBytes);
    if (bytes === 'over') return tooLarge(c, `more (reading stopped at ${maxBytes} bytes)`);
    if (bytes === 'unreadable')
      return options.refuse(c, { status: 400, message: 'The request body could not be read.' });
    if (nestsDeeperThan(new TextDecoder().decode(bytes), MAX_BODY_DEPTH))
      return options.refuse(c, {
        status: 400,
        message: `Expected a request body nested at most ${MAX_BODY_DEPTH} levels deep (objects and arrays), got one nested deeper.`,
      });
    c.req.raw = new Request(raw.url, {
      method: raw.method,
      headers: raw.headers,
      body: bytes,
      signal: raw.signal,
    });
    await next();
    return undefined;
  };
}

/**
 * The body's bytes, or `over` as soon as more than `maxBytes` have come. What is past the limit
 * is left unread (the refusal closes the connection).
 */
async function readAtMost(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
): Promise<Uint8Array<ArrayBuffer> | 'over' | 'unreadable'> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) return 'over';
      chunks.push(value);
    }
  } catch {
    return 'unreadable';
  } finally {
    reader.releaseLock();
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** The response, telling the client the connection ends with it. */
function closing(response: Response): Response {
  response.headers.set('connection', 'close');
  return response;
}

/** `4194304` → `4194304 bytes (4 MiB)`. */
export function describeBytes(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  const kib = bytes / 1024;
  if (Number.isInteger(mib)) return `${bytes} bytes (${mib} MiB)`;
  if (Number.isInteger(kib)) return `${bytes} bytes (${kib} KiB)`;
  return `${bytes} bytes`;
}
