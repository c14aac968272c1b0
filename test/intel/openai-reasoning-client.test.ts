import { afterEach, describe, expect, it } from 'vitest';
import {
  createModelClient,
  type IntelClient,
  type ModelRequest,
  type ModelResponse,
} from '../../src/intel/index.js';
import type { Endpoint } from '../../src/protocol/index.js';
import { FakeServers, intelConfig } from '../helpers/intel.js';

// arbor's own client against the fake LLM playing OpenAI's reasoning models, over real sockets.

const servers = new FakeServers();
afterEach(() => servers.closeAll());

type Mode = 'generate' | 'stream';

async function call(client: IntelClient, mode: Mode, request: ModelRequest) {
  if (mode === 'generate') return client.generate(request);
  let done: ModelResponse | undefined;
  for await (const delta of client.stream(request))
    if (delta.type === 'done') done = delta.response;
  if (done === undefined) throw new Error('the stream did not end with `done`');
  return done;
}

async function reasoningClient(
  endpoint: Partial<Pick<Endpoint, 'max_tokens_field'>>,
  sampling: Record<string, unknown>,
  model = 'o3-mini',
) {
  const server = await servers.start({ scripts: [{ steps: [{ text: 'thought it over' }] }] });
  const client = createModelClient(
    intelConfig([{ url: server.url, ...endpoint }], { model, sampling, retries: 0 }),
  );
  return { server, client };
}

const HELLO: ModelRequest = { messages: [{ role: 'user', text: 'hello' }] };

describe.each<Mode>(['generate', 'stream'])(
  'a reasoning model over chat completions (%s)',
  (mode) => {
    it('answers a call whose cap goes in max_completion_tokens, with reasoning tokens in its usage', async () => {
      const { server, client } = await reasoningClient(
        { max_tokens_field: 'max_completion_tokens' },
        { max_output_tokens: 400, reasoning_effort: 'high' },
      );
      const response = await call(client, mode, HELLO);
      expect(response.text).toBe('thought it over');
      expect(server.requests[0]?.body).toMatchObject({
        max_completion_tokens: 400,
        reasoning_effort: 'high',
      });
      expect(server.requests[0]?.body).not.toHaveProperty('max_tokens');
      // The fake's default for effort `high`: 512 reasoning tokens, counted in the output.
      expect(response.usage.reasoning_tokens).toBe(512);
      expect(response.usage.output_tokens).toBeGreaterThan(512);
      expect(response.usage).not.toHaveProperty('cache_read_tokens');
    });

    it('fails with the provider’s message when the cap goes in max_tokens (what arbor used to send)', async () => {
      // The fake is plain http on 127.0.0.1, so its default field is `max_tokens`.
      const { client } = await reasoningClient({}, { max_output_tokens: 400 });
      await expect(call(client, mode, HELLO)).rejects.toMatchObject({
        code: 'intel_bad_request',
        message: expect.stringContaining(
          "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
        ) as unknown,
      });
    });

    it('fails with the provider’s message on a temperature the model does not take', async () => {
      const { client } = await reasoningClient({}, { temperature: 0.2 });
      await expect(call(client, mode, HELLO)).rejects.toMatchObject({
        code: 'intel_bad_request',
        message: expect.stringContaining(
          "Unsupported value: 'temperature' does not support 0.2 with this model.",
        ) as unknown,
      });
    });

    it('reads the cached prefix of a repeated prompt into cache_read_tokens', async () => {
      const { client } = await reasoningClient({}, {}, 'gpt-5-mini');
      const system = `You are careful. ${'Rules of the house. '.repeat(400)}`;
      const first = await call(client, mode, { system, messages: [{ role: 'user', text: 'one' }] });
      const second = await call(client, mode, {
        system,
        messages: [
          { role: 'user', text: 'one' },
          { role: 'assistant', text: 'thought it over', tool_calls: [] },
          { role: 'user', text: 'two' },
        ],
      });
      expect(first.usage).not.toHaveProperty('cache_read_tokens');
      const cached = second.usage.cache_read_tokens ?? 0;
      expect(cached).toBeGreaterThanOrEqual(1024);
      expect((cached - 1024) % 128).toBe(0);
      // Input stays the whole prompt, the cached part within it.
      expect(second.usage.input_tokens).toBeGreaterThan(cached);
    });
  },
);
