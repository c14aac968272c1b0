import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { bodyLimit, describeBytes, MAX_BODY_DEPTH } from '../../src/serve/body-limit.js';
import { nestsDeeperThan } from '../../src/protocol/index.js';

/** An app that echoes the body it read, behind a 1 KiB limit. */
function echoApp(): Hono {
  const app = new Hono();
  app.use(
    '*',
    bodyLimit({
      maxBytes: 1024,
      setting: '[serve] max_body_bytes',
      refuse: (c, { status, message }) => c.json({ error: message }, status),
    }),
  );
  app.post('/echo', async (c) => c.text(await c.req.text()));
  app.get('/echo', (c) => c.text('got'));
  return app;
}

/** A body that arrives in chunks, with no length known up front. */
function chunked(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

function post(
  body: string | ReadableStream<Uint8Array>,
  headers: Record<string, string> = {},
): Request {
  return new Request('http://localhost/echo', {
    method: 'POST',
    body,
    headers,
    ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
  });
}

const nested = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('bodyLimit', () => {
  it.each([
    ['a small JSON body', post('{"a":[1,2,3]}'), '{"a":[1,2,3]}'],
    ['a body of exactly the limit', post('x'.repeat(1024)), 'x'.repeat(1024)],
    ['a chunked body within the limit', post(chunked(['{"a":', '"b"}'])), '{"a":"b"}'],
    [`JSON nested ${MAX_BODY_DEPTH} deep`, post(nested(MAX_BODY_DEPTH)), nested(MAX_BODY_DEPTH)],
    ['brackets inside a string', post(`"${'['.repeat(500)}"`), `"${'['.repeat(500)}"`],
  ])('hands on %s, whole, to the route', async (_name, request, expected) => {
    const response = await echoApp().fetch(request);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(expected);
  });

  it.each([
    [
      'a declared Content-Length past the limit',
      post('{}', { 'content-length': '600000000' }),
      413,
      'Expected a request body of at most 1024 bytes (1 KiB), `[serve] max_body_bytes`, got 600000000 bytes (its Content-Length).',
    ],
    [
      'a chunked body that passes the limit',
      post(chunked(['x'.repeat(1000), 'x'.repeat(1000)])),
      413,
      'Expected a request body of at most 1024 bytes (1 KiB), `[serve] max_body_bytes`, got more (reading stopped at 1024 bytes).',
    ],
    [
      `JSON nested ${MAX_BODY_DEPTH + 1} deep`,
      post(nested(MAX_BODY_DEPTH + 1)),
      400,
      'Expected a request body nested at most 64 levels deep (objects and arrays), got one nested deeper.',
    ],
  ])('refuses %s, naming the bound', async (_name, request, status, message) => {
    const response = await echoApp().fetch(request);
    expect(response.status).toBe(status);
    expect(await response.json()).toEqual({ error: message });
    if (status === 413) expect(response.headers.get('connection')).toBe('close');
  });

  it('stops reading a streamed body at the limit', async () => {
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1;
        controller.enqueue(new Uint8Array(256));
      },
    });
    const response = await echoApp().fetch(post(endless));
    expect(response.status).toBe(413);
    // 1024 bytes is four chunks; the fifth passes the limit. (The stream may pull one ahead.)
    expect(pulled).toBeLessThanOrEqual(7);
  });

  it('leaves a request without a body alone', async () => {
    const response = await echoApp().fetch(new Request('http://localhost/echo'));
    expect(await response.text()).toBe('got');
  });
});

describe('nestsDeeperThan', () => {
  it.each([
    ['[]', 1, false],
    ['[[]]', 1, true],
    ['{"a":{"b":[1]}}', 3, false],
    ['{"a":{"b":[1]}}', 2, true],
    [`"${'['.repeat(100)}"`, 1, false],
    [`["\\"${'['.repeat(100)}"]`, 1, false],
    ['['.repeat(5_000_000), 64, true],
  ])('%#: depth of JSON text past %i: %s', (text, limit, deeper) => {
    expect(nestsDeeperThan(text, limit)).toBe(deeper);
  });
});

describe('describeBytes', () => {
  it.each([
    [4 * 1024 * 1024, '4194304 bytes (4 MiB)'],
    [64 * 1024, '65536 bytes (64 KiB)'],
    [1000, '1000 bytes'],
  ])('%i → %s', (bytes, text) => {
    expect(describeBytes(bytes)).toBe(text);
  });
});
