import { afterEach, describe, expect, it } from 'vitest';
import { cacheIncrement } from '../../../src/testing/fake-llm/openai-prompt-cache.js';
import { isCachingModel, isReasoningModel } from '../../../src/testing/fake-llm/openai-rules.js';
import { startFakeLlm, type FakeLlm, type PlaybookInput } from '../../../src/testing/index.js';

// The fake LLM playing OpenAI's documented chat-completions behaviour, over HTTP.

const started: FakeLlm[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.close()));
});

async function start(playbook: PlaybookInput = { scripts: [{ steps: [{ text: 'ok' }] }] }) {
  const server = await startFakeLlm({ playbook });
  started.push(server);
  return server;
}

interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
  completion_tokens_details: { reasoning_tokens: number };
}

async function post(server: FakeLlm, body: Record<string, unknown>) {
  const response = await fetch(`${server.url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

async function usageOf(server: FakeLlm, body: Record<string, unknown>): Promise<Usage> {
  const reply = await post(server, body);
  expect(reply.status).toBe(200);
  return reply.json.usage as Usage;
}

/** The `usage` of the last chunk of a streamed answer. */
async function streamedUsage(server: FakeLlm, body: Record<string, unknown>): Promise<Usage> {
  const response = await fetch(`${server.url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, stream: true, stream_options: { include_usage: true } }),
  });
  const chunks = (await response.text())
    .split('\n\n')
    .filter((e) => e.startsWith('data: {'))
    .map((e) => JSON.parse(e.slice('data: '.length)) as { usage?: Usage });
  const usage = chunks.at(-1)?.usage;
  if (usage === undefined) throw new Error('the stream ended without a usage chunk');
  return usage;
}

const HI = [{ role: 'user', content: 'hi' }];

describe('fake LLM, OpenAI: what reasoning models refuse', () => {
  it('answers max_tokens to a reasoning model with OpenAI’s 400 body, and records it', async () => {
    const server = await start();
    const reply = await post(server, { model: 'o3-mini', messages: HI, max_tokens: 100 });
    expect(reply.status).toBe(400);
    expect(reply.json).toEqual({
      error: {
        message:
          "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
        type: 'invalid_request_error',
        param: 'max_tokens',
        code: 'unsupported_parameter',
      },
    });
    expect(server.requests[0]).toMatchObject({
      status: 400,
      step: null,
      error: expect.stringContaining("'max_tokens' is not supported") as unknown,
    });
  });

  it.each([
    'o1',
    'o1-mini',
    'o3',
    'o3-mini-2025-01-31',
    'o4-mini',
    'gpt-5',
    'gpt-5-nano',
    'gpt-5.1',
  ])('refuses max_tokens for %s and takes max_completion_tokens', async (model) => {
    const server = await start();
    expect((await post(server, { model, messages: HI, max_tokens: 5 })).status).toBe(400);
    expect((await post(server, { model, messages: HI, max_completion_tokens: 5 })).status).toBe(
      200,
    );
  });

  it.each(['gpt-4o', 'gpt-4.1-mini', 'gpt-5-chat-latest', 'o30', 'm', 'llama3'])(
    'takes max_tokens for %s, which is not a reasoning model',
    async (model) => {
      const server = await start();
      expect((await post(server, { model, messages: HI, max_tokens: 5 })).status).toBe(200);
    },
  );

  it('refuses a temperature other than 1 with OpenAI’s unsupported_value body', async () => {
    const server = await start();
    const reply = await post(server, { model: 'o4-mini', messages: HI, temperature: 0.2 });
    expect(reply.status).toBe(400);
    expect(reply.json).toEqual({
      error: {
        message:
          "Unsupported value: 'temperature' does not support 0.2 with this model. Only the default (1) value is supported.",
        type: 'invalid_request_error',
        param: 'temperature',
        code: 'unsupported_value',
      },
    });
    expect((await post(server, { model: 'o4-mini', messages: HI, temperature: 1 })).status).toBe(
      200,
    );
  });

  it('refuses top_p other than 1 as an unsupported parameter', async () => {
    const server = await start();
    const reply = await post(server, { model: 'gpt-5', messages: HI, top_p: 0.5 });
    expect(reply.status).toBe(400);
    expect(reply.json).toMatchObject({
      error: { param: 'top_p', code: 'unsupported_parameter' },
    });
  });

  it('lets GPT-5.1 and later take temperature and top_p at reasoning effort none only', async () => {
    const server = await start();
    const body = { model: 'gpt-5.1', messages: HI, temperature: 0.3, top_p: 0.5 };
    expect((await post(server, { ...body, reasoning_effort: 'none' })).status).toBe(200);
    // Their default effort is `none` too.
    expect((await post(server, body)).status).toBe(200);
    expect((await post(server, { ...body, reasoning_effort: 'low' })).status).toBe(400);
    expect((await post(server, { ...body, model: 'gpt-5', reasoning_effort: 'none' })).status).toBe(
      400,
    );
  });
});

describe('fake LLM, OpenAI: reasoning tokens', () => {
  it.each([
    [undefined, 192],
    ['low', 64],
    ['high', 512],
  ] as const)(
    'a reasoning model at effort %s reports %i reasoning tokens by default',
    async (effort, tokens) => {
      const server = await start({ scripts: [{ steps: [{ text: 'twelve chars' }] }] });
      const usage = await usageOf(server, {
        model: 'o3',
        messages: HI,
        ...(effort === undefined ? {} : { reasoning_effort: effort }),
      });
      expect(usage.completion_tokens_details.reasoning_tokens).toBe(tokens);
      // The answer's three tokens plus the reasoning.
      expect(usage.completion_tokens).toBe(3 + tokens);
      expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
    },
  );

  it('reports the step’s reasoning_tokens, streamed as well, for any model', async () => {
    const server = await start({
      scripts: [{ steps: [{ text: 'twelve chars', reasoning_tokens: 40 }] }],
    });
    expect(
      (await usageOf(server, { model: 'o3', messages: HI })).completion_tokens_details,
    ).toMatchObject({ reasoning_tokens: 40 });
    const streamed = await streamedUsage(server, { model: 'deepseek-reasoner', messages: HI });
    expect(streamed.completion_tokens_details.reasoning_tokens).toBe(40);
    expect(streamed.completion_tokens).toBe(43);
  });

  it('keeps a scripted usage as written, the reasoning within its output tokens', async () => {
    const server = await start({
      scripts: [
        {
          steps: [
            { text: 'x', usage: { input_tokens: 10, output_tokens: 20 }, reasoning_tokens: 50 },
          ],
        },
      ],
    });
    const usage = await usageOf(server, { model: 'o3', messages: HI });
    expect(usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 20, total_tokens: 30 });
    expect(usage.completion_tokens_details.reasoning_tokens).toBe(20);
  });

  it('reports zero reasoning tokens for a model that does not reason', async () => {
    const server = await start();
    const usage = await usageOf(server, { model: 'gpt-4o', messages: HI });
    expect(usage.completion_tokens_details.reasoning_tokens).toBe(0);
  });
});

describe('fake LLM, OpenAI: automatic prompt caching', () => {
  // 6000 characters of system prompt: the message's JSON is 6030 characters, 1507 tokens at four
  // a token, so a repeat reads 1024 + 3 × 128 = 1408 tokens from the cache.
  const SYSTEM = { role: 'system', content: 'x'.repeat(6000) };

  it('reports the repeated prefix as cached_tokens in 128-token increments', async () => {
    const server = await start();
    const first = await usageOf(server, { model: 'gpt-4o', messages: [SYSTEM, ...HI] });
    expect(first.prompt_tokens_details.cached_tokens).toBe(0);
    const second = await usageOf(server, {
      model: 'gpt-4o',
      messages: [SYSTEM, { role: 'user', content: 'something else' }],
    });
    expect(second.prompt_tokens_details.cached_tokens).toBe(1408);
    expect(second.prompt_tokens).toBeGreaterThan(1408);
    const streamed = await streamedUsage(server, { model: 'gpt-4o', messages: [SYSTEM, ...HI] });
    expect(streamed.prompt_tokens_details.cached_tokens).toBe(1408);
  });

  it('counts the tools first: a change of tools is a change of prefix', async () => {
    const server = await start();
    const tool = (name: string) => ({
      type: 'function',
      function: { name, parameters: { type: 'object' } },
    });
    await usageOf(server, { model: 'gpt-4o', messages: [SYSTEM, ...HI], tools: [tool('a')] });
    const other = await usageOf(server, {
      model: 'gpt-4o',
      messages: [SYSTEM, ...HI],
      tools: [tool('b')],
    });
    expect(other.prompt_tokens_details.cached_tokens).toBe(0);
  });

  it('caches per model, only prompts of 1024 tokens or more, and only for the models OpenAI caches', async () => {
    const server = await start();
    await usageOf(server, { model: 'gpt-4o', messages: [SYSTEM, ...HI] });
    const otherModel = await usageOf(server, { model: 'o3', messages: [SYSTEM, ...HI] });
    expect(otherModel.prompt_tokens_details.cached_tokens).toBe(0);
    const short = [{ role: 'system', content: 'y'.repeat(4000) }, ...HI];
    await usageOf(server, { model: 'gpt-4o', messages: short });
    expect(
      (await usageOf(server, { model: 'gpt-4o', messages: short })).prompt_tokens_details,
    ).toEqual({ cached_tokens: 0, audio_tokens: 0 });
    await usageOf(server, { model: 'm', messages: [SYSTEM, ...HI] });
    expect(
      (await usageOf(server, { model: 'm', messages: [SYSTEM, ...HI] })).prompt_tokens_details
        .cached_tokens,
    ).toBe(0);
  });

  it('never reports more cached tokens than a scripted prompt holds', async () => {
    const server = await start({
      scripts: [{ steps: [{ text: 'x', usage: { input_tokens: 1100, output_tokens: 1 } }] }],
    });
    await usageOf(server, { model: 'gpt-4o', messages: [SYSTEM, ...HI] });
    const usage = await usageOf(server, { model: 'gpt-4o', messages: [SYSTEM, ...HI] });
    expect(usage.prompt_tokens_details.cached_tokens).toBe(1024);
  });

  it.each([
    [0, 0],
    [1023, 0],
    [1024, 1024],
    [1151, 1024],
    [1152, 1152],
    [5000, 4992],
  ])('rounds %i matching tokens down to %i', (tokens, cached) => {
    expect(cacheIncrement(tokens)).toBe(cached);
  });
});

describe('which models the rules apply to', () => {
  it.each([
    ['o1', true, true],
    ['o3-mini', true, true],
    ['o4-mini-2025-04-16', true, true],
    ['gpt-5', true, true],
    ['gpt-5.2-codex', true, true],
    ['gpt-5-chat-latest', false, true],
    ['gpt-4o-mini', false, true],
    ['gpt-4.1', false, true],
    ['gpt-4-turbo', false, false],
    ['o30', false, false],
    ['m', false, false],
  ])('%s: reasoning %s, caching %s', (model, reasoning, caching) => {
    expect(isReasoningModel(model)).toBe(reasoning);
    expect(isCachingModel(model)).toBe(caching);
  });
});
