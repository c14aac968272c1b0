import { describe, expect, it } from 'vitest';
import type { DialectCall } from '../../src/intel/dialect.js';
import { OpenAiRequestSchema } from '../../src/intel/index.js';
import { buildOpenAiRequest, outputCapField } from '../../src/intel/openai-request.js';
import { ToolNames } from '../../src/intel/wire-names.js';
import type { Endpoint, Sampling } from '../../src/protocol/index.js';

const HELLO = { messages: [{ role: 'user' as const, text: 'hi' }] };

function call(
  url: string,
  sampling: Sampling,
  extra: Pick<Endpoint, 'max_tokens_field'> = {},
): DialectCall {
  return {
    request: HELLO,
    model: 'o3-mini',
    sampling,
    stream: false,
    names: new ToolNames([]),
    endpoint: { url, dialect: 'openai', headers: {}, ...extra },
  };
}

describe('the output cap of an OpenAI chat completion', () => {
  it.each([
    ['https://api.openai.com/v1', 'max_completion_tokens'],
    ['https://API.OpenAI.com/v1/', 'max_completion_tokens'],
    ['https://api.openai.com./v1', 'max_completion_tokens'],
    ['https://eu.api.openai.com/v1', 'max_completion_tokens'],
    ['https://us.api.openai.com/v1', 'max_completion_tokens'],
    ['https://my-res.openai.azure.com/openai/deployments/o3/', 'max_completion_tokens'],
    ['https://my-res.cognitiveservices.azure.com/openai/v1', 'max_completion_tokens'],
    ['https://my-proj.services.ai.azure.com/models', 'max_completion_tokens'],
    ['http://127.0.0.1:11434/v1', 'max_tokens'],
    ['https://openrouter.ai/api/v1', 'max_tokens'],
    ['https://api.together.xyz/v1', 'max_tokens'],
    // Look-alikes are not OpenAI's: only the exact host and the Azure suffixes count.
    ['https://api.openai.com.evil.example/v1', 'max_tokens'],
    ['https://notapi.openai.com/v1', 'max_tokens'],
    ['https://openai.azure.com.example/v1', 'max_tokens'],
    ['https://evilopenai.azure.com/v1', 'max_tokens'],
  ])('%s → %s by default', (url, field) => {
    expect(outputCapField({ url })).toBe(field);
    const body = buildOpenAiRequest(call(url, { max_output_tokens: 700 }));
    const other = field === 'max_tokens' ? 'max_completion_tokens' : 'max_tokens';
    expect(body).toMatchObject({ [field]: 700 });
    expect(body).not.toHaveProperty(other);
    expect(OpenAiRequestSchema.safeParse(body).success).toBe(true);
  });

  it.each([
    ['https://api.openai.com/v1', 'max_tokens'],
    ['http://127.0.0.1:8000/v1', 'max_completion_tokens'],
  ] as const)('the endpoint’s max_tokens_field overrides the default (%s → %s)', (url, field) => {
    const body = buildOpenAiRequest(
      call(url, { max_output_tokens: 9 }, { max_tokens_field: field }),
    );
    expect(body).toEqual({
      model: 'o3-mini',
      messages: [{ role: 'user', content: 'hi' }],
      [field]: 9,
    });
  });

  it('sends no cap at all when none is set', () => {
    const body = buildOpenAiRequest(call('https://api.openai.com/v1', {}));
    expect(body).toEqual({ model: 'o3-mini', messages: [{ role: 'user', content: 'hi' }] });
  });
});

describe('reasoning effort and sampling', () => {
  it.each(['minimal', 'low', 'medium', 'high'] as const)(
    'sends reasoning_effort %s as given',
    (effort) => {
      const body = buildOpenAiRequest(call('http://127.0.0.1:1/v1', { reasoning_effort: effort }));
      expect(body).toMatchObject({ reasoning_effort: effort });
    },
  );

  it('sends no reasoning_effort when none is set', () => {
    const body = buildOpenAiRequest(call('https://api.openai.com/v1', { temperature: 0.5 }));
    expect(body).not.toHaveProperty('reasoning_effort');
  });

  it('keeps temperature and top_p as configured, for a reasoning model too (the provider judges them)', () => {
    // arbor does not guess from a model's name which sampling it takes: GPT-5.1 at effort `none`
    // takes temperature, o3 refuses it. A refusal comes back as `intel_bad_request` with the
    // provider's message (test/intel/openai-reasoning-client.test.ts).
    const body = buildOpenAiRequest(
      call('https://api.openai.com/v1', { temperature: 0.2, top_p: 0.9, reasoning_effort: 'low' }),
    );
    expect(body).toMatchObject({ temperature: 0.2, top_p: 0.9, reasoning_effort: 'low' });
  });
});
