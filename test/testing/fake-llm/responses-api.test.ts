import { afterEach, describe, expect, it } from 'vitest';
import { createModelClient } from '../../../src/intel/index.js';
import type { ModelResponse } from '../../../src/intel/index.js';
import type { TranscriptMessage } from '../../../src/protocol/index.js';
import { startFakeLlm, type FakeLlm, type PlaybookInput } from '../../../src/testing/index.js';
import { intelConfig } from '../../helpers/intel.js';

const started: FakeLlm[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.close()));
});

async function start(playbook: PlaybookInput = TWO_STEPS): Promise<FakeLlm> {
  const server = await startFakeLlm({ playbook });
  started.push(server);
  return server;
}

const TWO_STEPS: PlaybookInput = {
  scripts: [
    {
      steps: [
        { text: 'Looking.', tool_calls: [{ name: 'fs.list', args: { path: '.' } }] },
        { text: 'Two files.' },
      ],
    },
  ],
};

interface Item extends Record<string, unknown> {
  type: string;
}
interface Answer {
  status: number;
  body: {
    model?: string;
    output?: Item[];
    usage?: Record<string, unknown>;
    error?: Record<string, unknown>;
  };
}

async function post(server: FakeLlm, body: Record<string, unknown>): Promise<Answer> {
  const response = await fetch(`${server.url}/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Answer['body'] };
}

const ASK = { type: 'message', role: 'user', content: 'List the directory.' };

/** The first step's answer, and the second request of the conversation built from it. */
async function firstStep(server: FakeLlm, model = 'o4-mini') {
  const first = await post(server, {
    model,
    input: [ASK],
    store: false,
    include: ['reasoning.encrypted_content'],
  });
  expect(first.status).toBe(200);
  const output = first.body.output ?? [];
  const reasoning = output.find((item) => item.type === 'reasoning');
  const call = output.find((item) => item.type === 'function_call');
  if (reasoning === undefined || call === undefined) throw new Error('no reasoning or call');
  const { id: _id, status: _status, ...callInput } = call;
  const result = { type: 'function_call_output', call_id: call.call_id, output: 'a.txt b.txt' };
  return { first, reasoning, call: callInput, result };
}

describe('the fake Responses API', () => {
  it('answers a reasoning model with an encrypted reasoning item and reasoning tokens', async () => {
    const server = await start();
    const { first, reasoning, call } = await firstStep(server);
    expect(first.body.output?.map((item) => item.type)).toEqual([
      'reasoning',
      'message',
      'function_call',
    ]);
    expect(reasoning).toMatchObject({ type: 'reasoning', id: 'rs_1', summary: [] });
    expect(typeof reasoning.encrypted_content).toBe('string');
    expect(call).toMatchObject({
      type: 'function_call',
      name: 'fs_list',
      arguments: '{"path":"."}',
    });
    expect(first.body.usage).toMatchObject({
      output_tokens_details: { reasoning_tokens: 16 },
      input_tokens_details: { cached_tokens: 0 },
    });
  });

  it('takes the conversation back with the reasoning item before its call', async () => {
    const server = await start();
    const { reasoning, call, result } = await firstStep(server);
    const second = await post(server, {
      model: 'o4-mini',
      input: [ASK, reasoning, call, result],
      store: false,
      include: ['reasoning.encrypted_content'],
    });
    expect(second.status).toBe(200);
    expect(second.body.output?.at(-1)).toMatchObject({
      type: 'message',
      content: [{ type: 'output_text', text: 'Two files.' }],
    });
  });

  it('refuses the call sent back without its reasoning item, as OpenAI words it', async () => {
    const server = await start();
    const { call, result } = await firstStep(server);
    const second = await post(server, {
      model: 'o4-mini',
      input: [ASK, call, result],
      store: false,
    });
    expect(second).toEqual({
      status: 400,
      body: {
        error: {
          message: `Item 'fc_1_0' of type 'function_call' was provided without its required 'reasoning' item: 'rs_1'.`,
          type: 'invalid_request_error',
          param: 'input',
          code: null,
        },
      },
    });
  });

  it('refuses altered encrypted content, and reasoning sent to another model', async () => {
    const server = await start();
    const { reasoning, call, result } = await firstStep(server);
    const blob = reasoning.encrypted_content as string;
    const flipped = `${blob.startsWith('A') ? 'B' : 'A'}${blob.slice(1)}`;
    const altered = await post(server, {
      model: 'o4-mini',
      input: [ASK, { ...reasoning, encrypted_content: flipped }, call, result],
      store: false,
    });
    expect(altered.status).toBe(400);
    expect(altered.body.error).toMatchObject({
      message: 'The encrypted content for item rs_1 could not be verified.',
      code: 'invalid_encrypted_content',
    });
    const elsewhere = await post(server, {
      model: 'o3',
      input: [ASK, reasoning, call, result],
      store: false,
    });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.error).toMatchObject({ code: 'invalid_encrypted_content' });
    // Another model takes the call without the first model's reasoning.
    const dropped = await post(server, { model: 'o3', input: [ASK, call, result], store: false });
    expect(dropped.status).toBe(200);
  });

  it('refuses a bare reasoning id when nothing is stored, and encrypted content for a model that does not reason', async () => {
    const server = await start();
    const { reasoning, call, result } = await firstStep(server);
    const { encrypted_content: _blob, ...bare } = reasoning;
    const unstored = await post(server, {
      model: 'o4-mini',
      input: [ASK, bare, call, result],
      store: false,
    });
    expect(unstored.status).toBe(404);
    expect(unstored.body.error?.message).toBe(
      "Item with id 'rs_1' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.",
    );
    const plain = await post(server, {
      model: 'gpt-4o',
      input: [ASK],
      include: ['reasoning.encrypted_content'],
    });
    expect(plain.status).toBe(400);
    expect(plain.body.error).toMatchObject({
      message: 'Encrypted content is not supported with this model.',
      param: 'include',
    });
  });

  it('answers `store: true` too, and a model that does not reason without reasoning', async () => {
    const server = await start();
    const stored = await post(server, { model: 'o4-mini', input: [ASK], store: true });
    expect(stored.status).toBe(200);
    // Without `include` the reasoning item comes without content: an id of a stored item.
    expect(stored.body.output?.[0]).toEqual({ type: 'reasoning', id: 'rs_1', summary: [] });
    const plain = await post(server, { model: 'gpt-4o', input: [ASK], store: false });
    expect(plain.body.output?.map((item) => item.type)).toEqual(['message', 'function_call']);
    expect(plain.body.usage).toMatchObject({ output_tokens_details: { reasoning_tokens: 0 } });
  });

  it('reports cached tokens for a prompt prefix it has seen, from 1024 tokens in steps of 128', async () => {
    const server = await start({ scripts: [{ steps: [{ text: 'ok' }] }] });
    const instructions = 'Follow the house rules. '.repeat(300);
    const ask = (text: string) =>
      post(server, { model: 'gpt-4o', instructions, input: [{ role: 'user', content: text }] });
    const first = await ask('one');
    expect(first.body.usage).toMatchObject({ input_tokens_details: { cached_tokens: 0 } });
    const second = await ask('two');
    const cached = (second.body.usage?.input_tokens_details as { cached_tokens: number })
      .cached_tokens;
    expect(cached).toBeGreaterThanOrEqual(1024);
    expect(cached % 128).toBe(0);
    expect(cached).toBeLessThanOrEqual(second.body.usage?.input_tokens as number);
  });
});

describe('arbor against the fake Responses API', () => {
  const tools = [{ name: 'fs.list', description: 'List.', input_schema: { type: 'object' } }];

  async function generate(stream: boolean, model: string) {
    const server = await start();
    const client = createModelClient(
      intelConfig([{ url: server.url, dialect: 'openai-responses' }], { model, retries: 0 }),
    );
    const call = async (history: TranscriptMessage[]): Promise<ModelResponse> => {
      if (!stream) return client.generate({ messages: history, tools });
      let done: ModelResponse | undefined;
      for await (const delta of client.stream({ messages: history, tools })) {
        if (delta.type === 'done') done = delta.response;
      }
      if (done === undefined) throw new Error('no done delta');
      return done;
    };
    return { server, call };
  }

  it.each([false, true])(
    'carries the encrypted reasoning of a tool-use step into the next (streamed: %s)',
    async (stream) => {
      const { server, call } = await generate(stream, 'o4-mini');
      const history: TranscriptMessage[] = [{ role: 'user', text: 'List it.' }];
      const first = await call(history);
      expect(first.reasoning).toMatchObject({ dialect: 'openai-responses', model: 'o4-mini' });
      expect(first.usage).toMatchObject({ reasoning_tokens: 16, cache_read_tokens: 0 });
      history.push(
        {
          role: 'assistant',
          text: first.text,
          tool_calls: first.toolCalls,
          ...(first.reasoning === undefined ? {} : { reasoning: first.reasoning }),
        },
        {
          role: 'tool',
          id: first.toolCalls[0]?.id ?? '',
          name: 'fs.list',
          content: 'a.txt',
          is_error: false,
        },
      );
      const second = await call(history);
      expect(second.text).toBe('Two files.');
      expect(server.requests.map((r) => r.status)).toEqual([200, 200]);
      for (const request of server.requests) {
        expect(request.body).toMatchObject({
          store: false,
          include: ['reasoning.encrypted_content'],
        });
      }
    },
  );

  it('without the reasoning the fake refuses the step: the test above would fail if arbor dropped it', async () => {
    const { server, call } = await generate(false, 'o4-mini');
    const first = await call([{ role: 'user', text: 'List it.' }]);
    const refused = call([
      { role: 'user', text: 'List it.' },
      { role: 'assistant', text: first.text, tool_calls: first.toolCalls },
      {
        role: 'tool',
        id: first.toolCalls[0]?.id ?? '',
        name: 'fs.list',
        content: 'a.txt',
        is_error: false,
      },
    ]);
    await expect(refused).rejects.toMatchObject({
      code: 'intel_bad_request',
      message: expect.stringContaining("without its required 'reasoning' item: 'rs_1'") as string,
    });
    expect(server.requests[1]?.status).toBe(400);
  });
});
