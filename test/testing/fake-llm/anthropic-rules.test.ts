import { describe, expect, it } from 'vitest';
import { REDACTED_THINKING_TRIGGER } from '../../../src/testing/fake-llm/anthropic-rules.js';
import type { PlaybookInput } from '../../../src/testing/fake-llm/index.js';
import { fakeLlm } from '../../helpers/fake-llm.js';

const PLAYBOOK: PlaybookInput = {
  scripts: [
    {
      steps: [
        {
          thinking: 'I should read x first.',
          tool_calls: [{ name: 'fs.read', args: {}, id: 'c1' }],
        },
        { text: 'Done.' },
      ],
    },
  ],
};

const THINK = { type: 'enabled', budget_tokens: 1024 };
const TOOLS = [{ name: 'fs_read', input_schema: { type: 'object' } }];

interface Reply {
  status: number;
  body: {
    content?: Record<string, unknown>[];
    usage?: Record<string, unknown>;
    type?: string;
    error?: { type: string; message: string };
  };
}

async function post(url: string, body: Record<string, unknown>): Promise<Reply> {
  const response = await fetch(`${url}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'claude-a', max_tokens: 4096, ...body }),
  });
  return { status: response.status, body: (await response.json()) as Reply['body'] };
}

/** The tool-use turn's second request, with the assistant message as given. */
function secondStep(assistant: Record<string, unknown>[]): Record<string, unknown> {
  return {
    thinking: THINK,
    tools: TOOLS,
    messages: [
      { role: 'user', content: 'Read x.' },
      { role: 'assistant', content: assistant },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'X' }] },
    ],
  };
}

describe('the fake LLM’s extended thinking', () => {
  it('opens a thinking answer with a signed block, and takes it back unaltered', async () => {
    const server = await fakeLlm(PLAYBOOK);
    const first = await post(server.url, {
      thinking: THINK,
      tools: TOOLS,
      messages: [{ role: 'user', content: 'Read x.' }],
    });
    expect(first.status).toBe(200);
    const [thinking, use] = first.body.content ?? [];
    expect(thinking).toMatchObject({ type: 'thinking', thinking: 'I should read x first.' });
    expect(typeof thinking?.signature).toBe('string');
    expect(use).toMatchObject({ type: 'tool_use', id: 'c1' });
    const second = await post(server.url, secondStep(first.body.content ?? []));
    expect(second.status).toBe(200);
    // Thinking is on for this step too: it opens with its own block.
    expect(second.body.content?.map((block) => block.type)).toEqual(['thinking', 'text']);
    expect(second.body.content?.[1]).toEqual({ type: 'text', text: 'Done.' });
  });

  it('answers without thinking when the request does not enable it', async () => {
    const server = await fakeLlm(PLAYBOOK);
    const reply = await post(server.url, { messages: [{ role: 'user', content: 'Read x.' }] });
    expect(reply.body.content?.map((block) => block.type)).toEqual(['tool_use']);
  });

  it('refuses a tool-use turn sent back without its thinking, as Anthropic does', async () => {
    const server = await fakeLlm(PLAYBOOK);
    const reply = await post(
      server.url,
      secondStep([{ type: 'tool_use', id: 'c1', name: 'fs_read', input: {} }]),
    );
    expect(reply.status).toBe(400);
    expect(reply.body.type).toBe('error');
    expect(reply.body.error?.type).toBe('invalid_request_error');
    expect(reply.body.error?.message).toMatch(
      /^messages\.1\.content\.0\.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`\. When `thinking` is enabled, a final `assistant` message must start with a thinking block/,
    );
  });

  it.each([
    ['its text altered', (block: Record<string, unknown>) => ({ ...block, thinking: 'Other.' })],
    ['a forged signature', (block: Record<string, unknown>) => ({ ...block, signature: 'AAAA' })],
  ])('refuses a thinking block with %s', async (_name, alter) => {
    const server = await fakeLlm(PLAYBOOK);
    const first = await post(server.url, {
      thinking: THINK,
      tools: TOOLS,
      messages: [{ role: 'user', content: 'Read x.' }],
    });
    const [thinking = {}, ...rest] = first.body.content ?? [];
    const reply = await post(server.url, secondStep([alter(thinking), ...rest]));
    expect(reply.status).toBe(400);
    expect(reply.body.error).toEqual({
      type: 'invalid_request_error',
      message: 'messages.1.content.0: Invalid `signature` in `thinking` block',
    });
  });

  it('answers with redacted thinking on Anthropic’s test string, and takes it back', async () => {
    const server = await fakeLlm(PLAYBOOK);
    const first = await post(server.url, {
      thinking: THINK,
      tools: TOOLS,
      messages: [{ role: 'user', content: `Read x. ${REDACTED_THINKING_TRIGGER}` }],
    });
    const [redacted] = first.body.content ?? [];
    expect(redacted?.type).toBe('redacted_thinking');
    expect(typeof redacted?.data).toBe('string');
    const second = await post(server.url, secondStep(first.body.content ?? []));
    expect(second.status).toBe(200);
  });

  it.each([
    [{ max_tokens: 1024 }, '`max_tokens` must be greater than `thinking.budget_tokens`'],
    [{ temperature: 0.5 }, '`temperature` may only be set to 1 when thinking is enabled'],
    [
      { tool_choice: { type: 'any' } },
      'Thinking may not be enabled when tool_choice forces tool use.',
    ],
  ])('refuses thinking with %o', async (extra, message) => {
    const server = await fakeLlm(PLAYBOOK);
    const reply = await post(server.url, {
      thinking: THINK,
      tools: TOOLS,
      messages: [{ role: 'user', content: 'Read x.' }],
      ...extra,
    });
    expect(reply.status).toBe(400);
    expect(reply.body.error?.message).toContain(message);
  });

  it('streams thinking as thinking_delta and signature_delta events before the answer', async () => {
    const server = await fakeLlm(PLAYBOOK);
    const response = await fetch(`${server.url}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'claude-a',
        max_tokens: 4096,
        stream: true,
        thinking: THINK,
        messages: [{ role: 'user', content: 'Read x.' }],
      }),
    });
    const text = await response.text();
    const order = ['"type":"thinking"', 'thinking_delta', 'signature_delta', '"type":"tool_use"'];
    const at = order.map((needle) => text.indexOf(needle));
    expect(at.every((index) => index >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
  });
});

describe('the fake LLM’s prompt cache', () => {
  const SYSTEM = 'You are careful. '.repeat(40);
  const cached = (minTokens: number): PlaybookInput => ({
    ...PLAYBOOK,
    prompt_cache: { min_tokens: minTokens },
  });
  const request = (ttl?: '1h') => ({
    system: [
      {
        type: 'text',
        text: SYSTEM,
        cache_control: ttl === undefined ? { type: 'ephemeral' } : { type: 'ephemeral', ttl },
      },
    ],
    messages: [{ role: 'user', content: 'Read x.' }],
  });

  it('writes a marked prefix once, then reads it; input_tokens is only the uncached rest', async () => {
    const server = await fakeLlm(cached(100));
    const first = await post(server.url, request());
    const written = first.body.usage?.cache_creation_input_tokens as number;
    expect(written).toBeGreaterThanOrEqual(100);
    expect(first.body.usage).toMatchObject({
      cache_read_input_tokens: 0,
      cache_creation: { ephemeral_5m_input_tokens: written, ephemeral_1h_input_tokens: 0 },
    });
    const second = await post(server.url, request());
    expect(second.body.usage).toMatchObject({
      cache_read_input_tokens: written,
      cache_creation_input_tokens: 0,
    });
    // The whole input is the same both times; only its split differs.
    const total = (usage: Record<string, unknown> | undefined): number =>
      (usage?.input_tokens as number) +
      (usage?.cache_read_input_tokens as number) +
      (usage?.cache_creation_input_tokens as number);
    expect(total(second.body.usage)).toBe(total(first.body.usage));
    expect(second.body.usage?.input_tokens).toBe(total(second.body.usage) - written);
  });

  it('reads an earlier prefix within 20 blocks of a breakpoint that moved', async () => {
    const server = await fakeLlm(cached(100));
    const base = request();
    const first = await post(server.url, {
      ...base,
      messages: [
        {
          role: 'user',
          content: [{ type: 'text', text: 'Read x.', cache_control: { type: 'ephemeral' } }],
        },
      ],
    });
    const written = first.body.usage?.cache_creation_input_tokens as number;
    const grown = await post(server.url, {
      ...base,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Read x.' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'Sure.' }] },
        {
          role: 'user',
          content: [{ type: 'text', text: 'Now y.', cache_control: { type: 'ephemeral' } }],
        },
      ],
    });
    expect(grown.body.usage?.cache_read_input_tokens).toBe(written);
    expect(grown.body.usage?.cache_creation_input_tokens).toBeGreaterThan(0);
  });

  it('counts one-hour writes apart', async () => {
    const server = await fakeLlm(cached(100));
    const reply = await post(server.url, request('1h'));
    const written = reply.body.usage?.cache_creation_input_tokens as number;
    expect(written).toBeGreaterThan(0);
    expect(reply.body.usage?.cache_creation).toEqual({
      ephemeral_5m_input_tokens: 0,
      ephemeral_1h_input_tokens: written,
    });
  });

  it('caches nothing below the minimum length (1024 tokens by default)', async () => {
    const server = await fakeLlm(PLAYBOOK);
    await post(server.url, request());
    const again = await post(server.url, request());
    expect(again.body.usage).toMatchObject({
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    });
  });

  it('refuses more than four breakpoints, as the API does', async () => {
    const server = await fakeLlm(PLAYBOOK);
    const mark = { type: 'ephemeral' };
    const reply = await post(server.url, {
      messages: [
        {
          role: 'user',
          content: ['a', 'b', 'c', 'd', 'e'].map((text) => ({
            type: 'text',
            text,
            cache_control: mark,
          })),
        },
      ],
    });
    expect(reply.status).toBe(400);
    expect(reply.body.error?.message).toBe(
      'A maximum of 4 blocks with cache_control may be provided. Found 5.',
    );
  });
});
