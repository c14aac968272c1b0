import { describe, expect, it } from 'vitest';
import { createModelClient } from '../../src/intel/index.js';
import { AgentSession } from '../../src/loop/index.js';
import { EstimateCorrection } from '../../src/loop/estimate-correction.js';
import { LimitsSchema } from '../../src/protocol/index.js';
import type { Tool } from '../../src/tools/index.js';
import { ToolSet } from '../helpers/tool-set.js';
import { fakeLlm, testIntel } from '../helpers/fake-llm.js';

describe('EstimateCorrection', () => {
  it('starts at the raw estimate', () => {
    const correction = new EstimateCorrection();
    expect(correction.correct(1000)).toBe(1000);
  });

  it('moves half way to each call’s ratio, so a steady provider is matched in a few calls', () => {
    const correction = new EstimateCorrection();
    const ratios: number[] = [];
    for (let call = 0; call < 6; call++) {
      correction.observe(1000, 2000);
      ratios.push(correction.ratio);
    }
    expect(ratios).toEqual([1.5, 1.75, 1.875, 1.9375, 1.96875, 1.984375]);
    expect(correction.correct(1000)).toBe(1985);
  });

  it('corrects downwards as well as upwards', () => {
    const correction = new EstimateCorrection();
    correction.observe(1000, 500);
    correction.observe(1000, 500);
    expect(correction.ratio).toBe(0.625);
    expect(correction.correct(1000)).toBe(625);
  });

  it.each([
    ['far above', 1_000_000, 4],
    ['far below', 1, 0.25],
  ])('clamps a ratio %s to the range 1/4–4', (_, reported, bound) => {
    const correction = new EstimateCorrection();
    for (let call = 0; call < 20; call++) correction.observe(1000, reported);
    expect(correction.ratio).toBe(bound);
  });

  it.each([
    [0, 100],
    [100, 0],
    [Number.NaN, 100],
  ])('ignores a call estimated at %s that reported %s', (raw, reported) => {
    const correction = new EstimateCorrection();
    correction.observe(raw, reported);
    expect(correction.ratio).toBe(1);
  });
});

/** A tool that does nothing, so the model can take several steps. */
const noop: Tool = {
  def: { name: 'test.noop', description: 'noop', input_schema: { type: 'object' } },
  run: () => Promise.resolve({ content: 'ok', isError: false }),
};

/** The estimates a session asks admission with, against a provider reporting `inputTokens`. */
async function estimatesAgainst(inputTokens: number): Promise<number[]> {
  const usage = { input_tokens: inputTokens, output_tokens: 1 };
  const server = await fakeLlm({
    scripts: [
      {
        steps: [
          { tool_calls: [{ name: 'test.noop', args: {} }], usage },
          { tool_calls: [{ name: 'test.noop', args: {} }], usage },
          { text: 'done', usage },
        ],
      },
    ],
  });
  const estimates: number[] = [];
  const agent = new AgentSession({
    model: createModelClient(testIntel([{ url: server.url, dialect: 'openai', headers: {} }])),
    tools: new ToolSet([noop]),
    system: 'You test.',
    transcript: [{ role: 'user', text: 'Go.' }],
    limits: LimitsSchema.parse({}),
    hooks: {
      admit: (estimate) => {
        estimates.push(estimate);
        return Promise.resolve({});
      },
    },
  });
  await agent.runTurn(undefined, { signal: new AbortController().signal });
  return estimates;
}

describe('a session’s admission estimates', () => {
  it('follow the input tokens its calls report, up or down', async () => {
    // Two sessions with the same transcripts, one against a provider reporting far more input
    // tokens than estimated, one far fewer: the first calls are estimated alike, then the
    // corrections part (×4 at the clamp against ×1/2, then ×1/4 after a second call).
    const high = await estimatesAgainst(100_000);
    const low = await estimatesAgainst(1);
    expect(high).toHaveLength(3);
    expect(high[0]).toBe(low[0]);
    // (Not exactly 8 and 16: one token reported is a little more than nothing.)
    expect(high[1]! / low[1]!).toBeGreaterThan(7.5);
    expect(high[1]! / low[1]!).toBeLessThanOrEqual(8.01);
    expect(high[2]! / low[2]!).toBeGreaterThan(14);
    expect(high[2]! / low[2]!).toBeLessThanOrEqual(16.01);
  });
});
