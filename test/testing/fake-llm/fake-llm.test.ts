import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  RecordedRequestSchema,
  startFakeLlm,
  type FakeLlm,
  type PlaybookInput,
} from '../../../src/testing/index.js';

const started: FakeLlm[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.close()));
});

async function start(playbook: PlaybookInput): Promise<FakeLlm> {
  const server = await startFakeLlm({ playbook });
  started.push(server);
  return server;
}

const CompletionSchema = z.object({
  choices: z.array(
    z.object({
      message: z.object({
        content: z.string().nullable(),
        tool_calls: z
          .array(
            z.object({
              id: z.string(),
              type: z.literal('function'),
              function: z.object({ name: z.string(), arguments: z.string() }),
            }),
          )
          .optional(),
      }),
      finish_reason: z.string(),
    }),
  ),
  usage: z.object({ prompt_tokens: z.number(), completion_tokens: z.number() }),
});

interface Chat {
  system?: string;
  user?: string;
  toolResults?: number;
  model?: string;
}

function openAiBody({ system, user = 'hi', toolResults = 0, model = 'm' }: Chat) {
  const messages: Record<string, unknown>[] = [];
  if (system !== undefined) messages.push({ role: 'system', content: system });
  messages.push({ role: 'user', content: user });
  for (let i = 0; i < toolResults; i++) {
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 't', arguments: '{}' } }],
    });
    messages.push({ role: 'tool', tool_call_id: `c${i}`, content: 'ok' });
  }
  return { model, messages };
}

async function post(
  url: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

async function chat(server: FakeLlm, chatInit: Chat = {}) {
  const reply = await post(server.url, '/chat/completions', openAiBody(chatInit));
  return {
    ...reply,
    json: reply.status === 200 ? CompletionSchema.parse(JSON.parse(reply.text)) : undefined,
  };
}

describe('fake LLM: choosing the answer', () => {
  it('uses the first script whose match fits: system prompt, user text, model, dialect', async () => {
    const server = await start({
      scripts: [
        { name: 'anthropic-only', match: { dialect: 'anthropic' }, steps: [{ text: 'A' }] },
        { name: 'child', match: { contains: 'You are the child' }, steps: [{ text: 'child' }] },
        { name: 'by-user', match: { contains: 'magic word' }, steps: [{ text: 'user' }] },
        { name: 'by-model', match: { model: 'special' }, steps: [{ text: 'model' }] },
        { name: 'rest', steps: [{ text: 'default' }] },
      ],
    });
    const texts = [];
    for (const init of [
      { system: 'You are the child of node 0.' },
      { user: 'say the magic word' },
      { model: 'special' },
      { model: 'special-not-exact' },
    ]) {
      texts.push((await chat(server, init)).json?.choices[0]?.message.content);
    }
    expect(texts).toEqual(['child', 'user', 'model', 'default']);
    expect(server.requests.map((r) => r.script?.name)).toEqual([
      'child',
      'by-user',
      'by-model',
      'rest',
    ]);
  });

  it('answers 500 with a JSON error saying no script matched, and records why', async () => {
    const server = await start({
      scripts: [{ match: { contains: 'nope' }, steps: [{ text: 'x' }] }],
    });
    const reply = await chat(server);
    expect(reply.status).toBe(500);
    expect(JSON.parse(reply.text)).toMatchObject({
      error: { message: expect.stringContaining('no script matched this request') as unknown },
    });
    expect(server.requests[0]).toMatchObject({
      status: 500,
      script: null,
      error: expect.stringContaining('no script matched') as unknown,
    });
  });

  it('picks the step by the number of tool results, repeating the last by default', async () => {
    const server = await start({
      scripts: [{ steps: [{ text: 's0' }, { text: 's1' }, { text: 's2' }] }],
    });
    const texts = [];
    for (const toolResults of [0, 1, 2, 5]) {
      texts.push((await chat(server, { toolResults })).json?.choices[0]?.message.content);
    }
    expect(texts).toEqual(['s0', 's1', 's2', 's2']);
    expect(server.requests.map((r) => [r.tool_results, r.step])).toEqual([
      [0, 0],
      [1, 1],
      [2, 2],
      [5, 2],
    ]);
  });

  it('answers 500 past the last step when after_last is `error`', async () => {
    const server = await start({
      scripts: [{ name: 'short', steps: [{ text: 's0' }], after_last: 'error' }],
    });
    expect((await chat(server)).status).toBe(200);
    const reply = await chat(server, { toolResults: 1 });
    expect(reply.status).toBe(500);
    expect(reply.text).toContain('script `short` has 1 steps and `after_last` is `error`');
  });

  it('uses a `faults` list up one request at a time, then answers: fails twice, then succeeds', async () => {
    const server = await start({
      scripts: [
        { match: { contains: 'other' }, steps: [{ text: 'other script' }] },
        {
          steps: [
            {
              text: 'finally',
              faults: [
                { status: 503, retry_after: 2 },
                { status: 429, body: 'slow' },
              ],
            },
            { text: 'step 1 is unaffected' },
          ],
        },
      ],
    });
    const first = await chat(server);
    expect(first.status).toBe(503);
    expect(first.headers.get('retry-after')).toBe('2');
    expect(JSON.parse(first.text)).toMatchObject({ error: { type: 'server_error' } });
    expect((await chat(server, { user: 'other' })).status).toBe(200);
    expect((await chat(server, { toolResults: 1 })).json?.choices[0]?.message.content).toBe(
      'step 1 is unaffected',
    );
    const second = await chat(server);
    expect([second.status, second.text]).toEqual([429, 'slow']);
    expect((await chat(server)).json?.choices[0]?.message.content).toBe('finally');
    expect((await chat(server)).status).toBe(200);
  });

  it('plays `fault` on every request landing on the step', async () => {
    const server = await start({ scripts: [{ steps: [{ fault: { status: 502 } }] }] });
    expect([(await chat(server)).status, (await chat(server)).status]).toEqual([502, 502]);
    expect(server.requests.map((r) => r.fault)).toEqual(['status', 'status']);
  });

  it('sends tool calls with wire names, generated or scripted ids, and usage', async () => {
    const server = await start({
      scripts: [
        {
          steps: [
            {
              tool_calls: [
                { name: 'subagent.run', args: { instruction: 'x' } },
                { name: 'fs.read', args: { path: 'a' }, id: 'mine' },
              ],
            },
            {
              text: 'done',
              tool_calls: [{ name: 'plan.show' }],
              usage: { input_tokens: 7, output_tokens: 9 },
            },
          ],
        },
      ],
    });
    const first = (await chat(server)).json!;
    expect(first.choices[0]?.message.tool_calls).toEqual([
      {
        id: 'call_1',
        type: 'function',
        function: { name: 'subagent_run', arguments: '{"instruction":"x"}' },
      },
      { id: 'mine', type: 'function', function: { name: 'fs_read', arguments: '{"path":"a"}' } },
    ]);
    expect(first.choices[0]?.message.content).toBeNull();
    expect(first.choices[0]?.finish_reason).toBe('tool_calls');
    const second = (await chat(server, { toolResults: 1 })).json!;
    expect(second.choices[0]?.message.tool_calls?.[0]?.id).toBe('call_2');
    expect(second.usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 9 });
  });

  it('estimates usage deterministically when the step gives none', async () => {
    const server = await start({ scripts: [{ steps: [{ text: 'twelve chars' }] }] });
    const body = openAiBody({ user: 'x'.repeat(400) });
    const reply = JSON.parse((await post(server.url, '/chat/completions', body)).text) as {
      usage: { prompt_tokens: number; completion_tokens: number };
    };
    expect(reply.usage).toMatchObject({
      prompt_tokens: Math.ceil(JSON.stringify(body).length / 4),
      completion_tokens: 3,
    });
  });
});

describe('fake LLM: HTTP surface', () => {
  it.each([
    ['/v1/chat/completions', 'openai'],
    ['/chat/completions', 'openai'],
    ['/v1/messages', 'anthropic'],
    ['/messages', 'anthropic'],
  ])('serves %s (%s)', async (path, dialect) => {
    const server = await start({ scripts: [{ steps: [{ text: 'hi' }] }] });
    const body =
      dialect === 'openai'
        ? openAiBody({})
        : { model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] };
    const reply = await post(server.origin, path, body);
    expect(reply.status).toBe(200);
    expect(server.requests[0]).toMatchObject({ path, dialect, status: 200 });
  });

  it('rejects a body that is not the dialect’s request shape with 400 naming the field', async () => {
    const server = await start({ scripts: [{ steps: [{ text: 'hi' }] }] });
    const reply = await post(server.url, '/messages', {
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.text)).toEqual({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: 'Invalid request: `max_tokens`: required field is missing',
      },
    });
  });

  it('answers 404 elsewhere', async () => {
    const server = await start({ scripts: [{ steps: [{ text: 'hi' }] }] });
    const reply = await fetch(`${server.url}/models`);
    expect(reply.status).toBe(404);
  });

  it('records every request, credentials redacted, and serves the record as JSON', async () => {
    const server = await start({ scripts: [{ name: 's', steps: [{ text: 'hi' }] }] });
    await post(server.url, '/chat/completions', openAiBody({ user: 'record me' }), {
      authorization: 'Bearer sk-secret-123456',
      'x-api-key': 'also-secret',
      'x-request-id': 'r-1',
    });
    const listed = await fetch(`${server.origin}/__arbor/requests`);
    const records = z.array(RecordedRequestSchema).parse(await listed.json());
    expect(records[0]).toMatchObject({
      seq: 1,
      method: 'POST',
      path: '/v1/chat/completions',
      dialect: 'openai',
      headers: { authorization: '[redacted]', 'x-api-key': '[redacted]', 'x-request-id': 'r-1' },
      body: { messages: [{ role: 'user', content: 'record me' }] },
      script: { index: 0, name: 's' },
      step: 0,
      tool_results: 0,
      stream: false,
      status: 200,
      fault: null,
      error: null,
    });
    expect(records[1]).toMatchObject({ method: 'GET', path: '/__arbor/requests' });
    expect(JSON.stringify(server.requests)).not.toContain('secret');
  });

  it('answers a `malformed` fault with 200 and a body of the wrong shape', async () => {
    const server = await start({ scripts: [{ steps: [{ fault: { kind: 'malformed' } }] }] });
    const reply = await post(server.url, '/chat/completions', openAiBody({}));
    expect(reply.status).toBe(200);
    expect(CompletionSchema.safeParse(JSON.parse(reply.text)).success).toBe(false);
  });

  it('drops the socket for a `reset` fault', async () => {
    const server = await start({ scripts: [{ steps: [{ fault: { kind: 'reset' } }] }] });
    await expect(chat(server)).rejects.toThrow(TypeError);
    expect(server.requests[0]).toMatchObject({ fault: 'reset', status: null });
  });

  it('holds a `hang` until the client gives up, counting the open socket meanwhile', async () => {
    const server = await start({ scripts: [{ steps: [{ fault: { kind: 'hang' } }] }] });
    const controller = new AbortController();
    const pending = fetch(`${server.url}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify(openAiBody({})),
      signal: controller.signal,
    }).catch((e: unknown) => e);
    await server.waitForRequests(1);
    expect(server.openSockets).toBeGreaterThanOrEqual(1);
    const socket = server.requests[0]!.socket;
    controller.abort();
    await pending;
    await server.waitForSocketClose(socket);
    expect(server.requests[0]?.status).toBeNull();
  });

  it('close() ends hung requests and rejects pending waits', async () => {
    const server = await startFakeLlm({
      playbook: { scripts: [{ steps: [{ fault: { kind: 'hang' } }] }] },
    });
    const pending = fetch(`${server.url}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify(openAiBody({})),
    }).catch((e: unknown) => e);
    await server.waitForRequests(1);
    const waiting = server.waitForRequests(5).catch((e: unknown) => e);
    await server.close();
    expect(await pending).toBeInstanceOf(TypeError);
    expect(await waiting).toMatchObject({ code: 'cancelled' });
    expect(server.openSockets).toBe(0);
  });

  it('refuses an invalid playbook before listening, and on setPlaybook', async () => {
    await expect(startFakeLlm({ playbook: { scripts: [] } })).rejects.toMatchObject({
      code: 'config',
    });
    const server = await start({ scripts: [{ steps: [{ text: 'a' }] }] });
    expect(() => {
      server.setPlaybook({ scripts: [{ steps: [] }] });
    }).toThrow(/`scripts\[0\].steps`: expected at least one step/);
    expect((await chat(server)).json?.choices[0]?.message.content).toBe('a');
  });

  it('streams OpenAI chunks ending in [DONE], with usage only when asked', async () => {
    const server = await start({ scripts: [{ steps: [{ text: 'a b' }] }] });
    const body = { ...openAiBody({}), stream: true };
    const plain = await post(server.url, '/chat/completions', body);
    expect(plain.headers.get('content-type')).toContain('text/event-stream');
    expect(plain.text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect(plain.text).not.toContain('"usage"');
    const withUsage = await post(server.url, '/chat/completions', {
      ...body,
      stream_options: { include_usage: true },
    });
    expect(withUsage.text).toContain('"usage":{"prompt_tokens"');
  });

  it('streams Anthropic events in the documented order', async () => {
    const server = await start({
      scripts: [{ steps: [{ text: 'a', tool_calls: [{ name: 'x.y', args: { k: 1 } }] }] }],
    });
    const reply = await post(server.url, '/messages', {
      model: 'm',
      max_tokens: 5,
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    });
    const names = reply.text
      .split('\n')
      .filter((line) => line.startsWith('event: '))
      .map((line) => line.slice(7));
    expect(names).toEqual([
      'message_start',
      'ping',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(reply.text).toContain('"name":"x_y"');
  });
});
