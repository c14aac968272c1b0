import type { ServerResponse } from 'node:http';
import type { Dialect } from '../../protocol/index.js';
import { anthropicError } from './anthropic-reply.js';
import { openAiError } from './openai-reply.js';

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}

/** An error in the dialect's own body shape, so clients read it as they would a real one. */
export function sendError(
  response: ServerResponse,
  dialect: Dialect | null,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  const body =
    dialect === 'anthropic' ? anthropicError(status, message) : openAiError(status, message);
  sendJson(response, status, body, headers);
}

/** Writes a whole `text/event-stream` answer, or with `cut` its events and then a dropped socket. */
export function sendEvents(
  response: ServerResponse,
  events: readonly string[],
  options: { cut?: boolean; headers?: Record<string, string> } = {},
): void {
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    ...options.headers,
  });
  for (const event of events) response.write(event);
  if (options.cut !== true) {
    response.end();
    return;
  }
  // Flushed first, so the client has read part of the answer when the connection goes.
  response.write('', () => response.socket?.destroy());
}

/** Resolves `true` after `ms`, or `false` as soon as the client goes away. */
export function waitWhileConnected(response: ServerResponse, ms: number): Promise<boolean> {
  if (ms <= 0) return Promise.resolve(!response.destroyed);
  return new Promise((resolve) => {
    const onClose = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      response.off('close', onClose);
      resolve(!response.destroyed);
    }, ms);
    response.once('close', onClose);
  });
}
