import { describe, expect, it } from 'vitest';
import type { DecodedResponse } from '../../src/intel/dialect.js';
import type { PoolEndpoint } from '../../src/intel/pool-endpoint.js';
import { toModelResponse, type PreparedCall } from '../../src/intel/prepare-call.js';

describe('the reasoning of a response', () => {
  it('names the model the call asked for, not the dated snapshot the server answered with', () => {
    const answer: DecodedResponse = {
      text: '',
      toolCalls: [],
      finishReason: 'tool_calls',
      usage: { input_tokens: 1, output_tokens: 1 },
      model: 'claude-a-20250101',
      reasoning: { dialect: 'anthropic', model: 'claude-a-20250101', blocks: [{ type: 'x' }] },
    };
    const prepared = { model: 'claude-a', prices: {} } as unknown as PreparedCall;
    const response = toModelResponse(answer, { index: 0 } as unknown as PoolEndpoint, prepared);
    // The next call asks for `claude-a` again and compares: the thinking must go back.
    expect(response.reasoning).toEqual({
      dialect: 'anthropic',
      model: 'claude-a',
      blocks: [{ type: 'x' }],
    });
    expect(response.model).toBe('claude-a-20250101');
  });
});
