import { describe, expect, it } from 'vitest';
import type { DecodedResponse } from '../../src/intel/dialect.js';
import type { OpenAiUsage } from '../../src/intel/index.js';
import { decodeOpenAiResponse } from '../../src/intel/openai-response.js';
import { OpenAiStreamDecoder } from '../../src/intel/openai-stream.js';
import { ToolNames } from '../../src/intel/wire-names.js';

const NAMES = new ToolNames([]);

/** A usage as OpenAI sends it: every detail present, zeros included. */
function openAiUsage(cached: number, reasoning: number): OpenAiUsage {
  return {
    prompt_tokens: 2000,
    completion_tokens: 300,
    total_tokens: 2300,
    prompt_tokens_details: { cached_tokens: cached, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: reasoning,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

function unstreamed(usage: unknown): DecodedResponse['usage'] {
  const body = {
    model: 'o3-mini',
    choices: [{ message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
    usage,
  };
  return decodeOpenAiResponse(body, NAMES).usage;
}

function streamed(usage: unknown): DecodedResponse['usage'] {
  const decoder = new OpenAiStreamDecoder(NAMES);
  const events = [
    { model: 'o3-mini', choices: [{ index: 0, delta: { role: 'assistant', content: 'ok' } }] },
    { model: 'o3-mini', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
    { model: 'o3-mini', choices: [], usage },
  ];
  for (const event of events) decoder.push({ event: undefined, data: JSON.stringify(event) });
  decoder.push({ event: undefined, data: '[DONE]' });
  return decoder.finish().usage;
}

describe.each([
  ['unstreamed', unstreamed],
  ['streamed', streamed],
])('OpenAI usage, %s', (_mode, decode) => {
  it('splits cached and reasoning tokens out, input and output staying the totals', () => {
    expect(decode(openAiUsage(1152, 256))).toEqual({
      input_tokens: 2000,
      output_tokens: 300,
      cache_read_tokens: 1152,
      reasoning_tokens: 256,
    });
  });

  it('keeps no split count that is zero (OpenAI reports zeros on every call)', () => {
    expect(decode(openAiUsage(0, 0))).toEqual({ input_tokens: 2000, output_tokens: 300 });
    expect(decode(openAiUsage(0, 40))).toEqual({
      input_tokens: 2000,
      output_tokens: 300,
      reasoning_tokens: 40,
    });
  });

  it('reads servers that send no details, or null ones', () => {
    const bare = { prompt_tokens: 5, completion_tokens: 6 };
    expect(decode(bare)).toEqual({ input_tokens: 5, output_tokens: 6 });
    expect(
      decode({ ...bare, prompt_tokens_details: null, completion_tokens_details: null }),
    ).toEqual({ input_tokens: 5, output_tokens: 6 });
    expect(
      decode({
        ...bare,
        prompt_tokens_details: { cached_tokens: null },
        completion_tokens_details: {},
      }),
    ).toEqual({ input_tokens: 5, output_tokens: 6 });
  });

  it('refuses a negative or fractional count as not the shape', () => {
    expect(() =>
      decode({ ...openAiUsage(0, 0), prompt_tokens_details: { cached_tokens: -1 } }),
    ).toThrow(/cached_tokens/);
    expect(() =>
      decode({ ...openAiUsage(0, 0), completion_tokens_details: { reasoning_tokens: 1.5 } }),
    ).toThrow(/reasoning_tokens/);
  });
});
