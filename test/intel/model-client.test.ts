import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createModelClient, type ModelDelta } from '../../src/intel/index.js';
import { FakeServers, USER_HELLO, answering, intelConfig } from '../helpers/intel.js';

const servers = new FakeServers();
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await servers.closeAll();
  await Promise.all(closers.splice(0).map((close) => close()));
});

interface Seen {
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A bare HTTP server answering every request with `reply`: for servers that bend the dialect. */
async function rawServer(
  reply: (response: ServerResponse) => void,
): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      seen.push({
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString(),
      });
      reply(response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  );
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return { url: `http://127.0.0.1:${port}/v1`, seen };
}

function json(body: unknown) {
  return (response: ServerResponse) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  };
}

const COMPLETION = {
  model: 'served-model-2030',
  choices: [
    {
      message: {
        content: 'plain answer',
        tool_calls: [
          { id: 't1', type: 'function', function: { name: 'fs_read', arguments: '{"path": ' } },
        ],
      },
      finish_reason: 'tool_calls',
    },
  ],
};

describe('model client', () => {
  it('estimates usage when the server reports none (and leaves pricing to the supervisor)', async () => {
    const raw = await rawServer(json(COMPLETION));
    const client = createModelClient(
      intelConfig([raw.url], {
        prices: { 'test-model': { input_per_mtok: 1, output_per_mtok: 1 } },
      }),
    );
    const response = await client.generate(USER_HELLO);
    expect(response.usageEstimated).toBe(true);
    expect(response.usage.input_tokens).toBe(Math.ceil(raw.seen[0]!.body.length / 4));
    expect(response.usage.output_tokens).toBeGreaterThan(0);
    expect(response.usage.cost_usd).toBeUndefined();
    expect(response.model).toBe('served-model-2030');
  });

  it('keeps a tool call whose arguments are not JSON, with an error the loop can send back', async () => {
    const raw = await rawServer(json(COMPLETION));
    const client = createModelClient(intelConfig([raw.url]));
    const response = await client.generate({
      ...USER_HELLO,
      tools: [{ name: 'fs.read', description: '', input_schema: {} }],
    });
    expect(response.toolCalls).toEqual([
      {
        id: 't1',
        name: 'fs.read',
        args: {},
        argsError: 'Expected the arguments of `fs.read` to be a JSON object, got `{"path": `.',
      },
    ]);
    expect(response.text).toBe('plain answer');
  });

  it('streams an answer that arrived whole from a server that ignores `stream`', async () => {
    const raw = await rawServer(
      json({ ...COMPLETION, choices: [{ message: { content: 'whole' }, finish_reason: 'stop' }] }),
    );
    const client = createModelClient(intelConfig([raw.url]));
    const deltas: ModelDelta[] = [];
    for await (const delta of client.stream(USER_HELLO)) deltas.push(delta);
    expect(deltas.map((d) => d.type)).toEqual(['text', 'done']);
    expect(deltas[0]).toEqual({ type: 'text', text: 'whole' });
  });

  it('does not follow a redirect, which would carry the credential elsewhere', async () => {
    const raw = await rawServer((response) => {
      response.writeHead(307, { location: 'http://127.0.0.1:1/v1/chat/completions' });
      response.end();
    });
    const client = createModelClient(intelConfig([{ url: raw.url, api_key: 'k' }]));
    await expect(client.generate(USER_HELLO)).rejects.toMatchObject({
      code: 'intel_bad_request',
      message:
        'Endpoint 0 rejected the request: HTTP 307: the endpoint redirects; configure the address it redirects to.',
    });
    expect(raw.seen).toHaveLength(1);
  });

  it('keeps the base URL’s path and query, and sends custom headers over the defaults', async () => {
    const raw = await rawServer(json(COMPLETION));
    const client = createModelClient(
      intelConfig([
        {
          url: raw.url.replace('/v1', '/openai/deployments/d1/?api-version=2024-06-01'),
          api_key: 'k-123',
          headers: { 'api-key': 'azure-key', 'x-team': 'search', accept: 'application/json' },
        },
      ]),
    );
    await client.generate({
      ...USER_HELLO,
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    });
    const seen = raw.seen[0]!;
    expect(seen.url).toBe('/openai/deployments/d1/chat/completions?api-version=2024-06-01');
    expect(seen.headers).toMatchObject({
      authorization: 'Bearer k-123',
      'api-key': 'azure-key',
      'x-team': 'search',
      'content-type': 'application/json',
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    });
  });

  it('sends the Anthropic credential and version headers', async () => {
    const server = await servers.start(answering('hi'));
    const client = createModelClient(
      intelConfig([{ url: server.url, dialect: 'anthropic', api_key: 'ak' }]),
    );
    await client.generate(USER_HELLO);
    expect(server.requests[0]?.path).toBe('/v1/messages');
    expect(server.requests[0]?.headers).toMatchObject({
      'x-api-key': '[redacted]',
      'anthropic-version': '2023-06-01',
    });
  });

  it('picks the model: the request’s, else the endpoint’s, else the config’s', async () => {
    const server = await servers.start(answering('hi'));
    const client = createModelClient(
      intelConfig([{ url: server.url, model: 'endpoint-model' }], { model: 'config-model' }),
    );
    await client.generate(USER_HELLO);
    await client.generate({ ...USER_HELLO, model: 'cheaper-model' });
    expect(server.requests.map((r) => (r.body as { model: string }).model)).toEqual([
      'endpoint-model',
      'cheaper-model',
    ]);
    expect(client.model).toBe('config-model');
  });

  it('reports tokens, never a cost, even with a price table (the supervisor prices them)', async () => {
    const server = await servers.start({
      scripts: [{ steps: [{ text: 'x', usage: { input_tokens: 1_000_000, output_tokens: 0 } }] }],
    });
    const client = createModelClient(
      intelConfig([server.url], {
        prices: { 'test-model': { input_per_mtok: 2.5, output_per_mtok: 10 } },
      }),
    );
    const response = await client.generate(USER_HELLO);
    expect(response.usage).toEqual({ input_tokens: 1_000_000, output_tokens: 0 });
    expect(response.model).toBe('test-model');
    expect(response.endpointIndex).toBe(0);
  });

  it('merges the request’s sampling over the config’s', async () => {
    const server = await servers.start(answering('hi'));
    const client = createModelClient(
      intelConfig([server.url], { sampling: { temperature: 0.1, max_output_tokens: 100 } }),
    );
    await client.generate({ ...USER_HELLO, sampling: { temperature: 0.9 } });
    expect(server.requests[0]?.body).toMatchObject({ temperature: 0.9, max_tokens: 100 });
  });
});

describe('client options', () => {
  it.each<[string, Record<string, unknown>, string]>([
    [
      'an unknown mode',
      { mode: 'daemon' },
      'Expected `mode` to be `one-shot` or `long-lived`, got `daemon`.',
    ],
    [
      'a negative retry wait',
      { maxRetryWaitMs: -1 },
      'Expected `maxRetryWaitMs` to be a number of milliseconds >= 0, got -1.',
    ],
    [
      'an inverted backoff',
      { allDownBackoff: { baseMs: 5_000, maxMs: 1_000 } },
      'Expected `allDownBackoff` to have 0 < baseMs <= maxMs, got 5000 ms and 1000 ms.',
    ],
  ])('refuses %s with a config error', (_name, options, message) => {
    expect(() => createModelClient(intelConfig(['http://127.0.0.1:9/v1']), options)).toThrow(
      message,
    );
  });
});
