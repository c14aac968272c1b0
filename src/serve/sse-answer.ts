import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';

/** How one binding writes a stream: its events, and its errors before and after the first. */
export interface StreamWire<T> {
  /** An event, as the JSON of its `data:` line. */
  event(value: T): unknown;
  /** An error once the stream has begun, as the JSON of an `event: error`. */
  error(error: unknown): unknown;
  /** An error before the first event: the binding's plain error response. */
  refuse(error: unknown): Response;
}

/**
 * A stream of A2A events answered as server-sent events, the same on every binding. The first
 * event is awaited before the response starts, so a call refused at once (a task not found, a
 * limit) gets the binding's error response, not a stream that fails. When the caller goes away,
 * `gone` is aborted and the stream is ended, so no reader of the task is left waiting.
 */
export async function sseAnswer<T>(
  c: Context,
  stream: AsyncIterable<T>,
  gone: AbortController,
  wire: StreamWire<T>,
): Promise<Response> {
  const iterator = stream[Symbol.asyncIterator]();
  let first: IteratorResult<T>;
  try {
    first = await iterator.next();
  } catch (error) {
    return wire.refuse(error);
  }
  return streamSSE(c, async (sse) => {
    sse.onAbort(() => {
      gone.abort();
      void iterator.return?.(undefined);
    });
    try {
      for (let next = first; next.done !== true; next = await iterator.next())
        await sse.writeSSE({ data: JSON.stringify(wire.event(next.value)) });
    } catch (error) {
      await sse.writeSSE({ event: 'error', data: JSON.stringify(wire.error(error)) });
    }
  });
}
