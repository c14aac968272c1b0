import { describe, expect, it } from 'vitest';
import { CHILD_BOUNDS, type AgentFrame, type ProtocolViolation } from '../../src/protocol/index.js';
import { ChildBounds } from '../../src/supervisor/node/child-bounds.js';
import { ProcessRun } from '../../src/supervisor/index.js';
import { frames, hostileEnv } from '../helpers/hostile.js';
import { FAST_TIMING, fixtureChild, testPayload } from '../helpers/payloads.js';

interface Heard {
  frames: AgentFrame[];
  violations: ProtocolViolation[];
  toolRequests: number;
  budgetRequests: number;
}

/** Runs the hostile fixture; requests are left unanswered, as a slow supervisor would. */
function hostile(env: NodeJS.ProcessEnv): { run: ProcessRun; heard: Heard } {
  const heard: Heard = { frames: [], violations: [], toolRequests: 0, budgetRequests: 0 };
  const never = new Promise<never>(() => undefined);
  const run = new ProcessRun(testPayload(), {
    command: fixtureChild('hostile'),
    env,
    timing: FAST_TIMING,
    handlers: {
      onFrame: (frame) => heard.frames.push(frame),
      onViolation: (violation) => heard.violations.push(violation),
      onToolRequest: () => {
        heard.toolRequests += 1;
        return never;
      },
      onBudgetRequest: () => {
        heard.budgetRequests += 1;
        return never;
      },
    },
  });
  return { run, heard };
}

describe('a child past the violation limit', () => {
  it('is not heard again: a flood of random bytes leaves the limit of violations, the rest counted once', async () => {
    const { run, heard } = hostile(hostileEnv([], { flood: true }));
    const end = await run.result;
    expect(heard.violations).toHaveLength(FAST_TIMING.violationLimit);
    expect(end.outcome).toMatchObject({ status: 'crashed' });
    expect(end.outcome.reason).toContain('3 protocol violations (limit 3)');
    expect(end.protocol?.violations).toBeGreaterThanOrEqual(FAST_TIMING.violationLimit);
    expect(end.protocol?.dropped).toBeGreaterThan(0);
  });

  it('has nothing it wrote after the limit acted on, valid frames included', async () => {
    const lines = [
      'not json',
      '{"type":"explode"}',
      '[1]',
      ...frames(5, (i) => ({ type: 'event', event: 'after.limit', fields: { i } })),
      JSON.stringify({ type: 'result', outcome: { status: 'completed', result: 'forged' } }),
    ];
    const { run, heard } = hostile(hostileEnv(lines));
    const end = await run.result;
    expect(heard.violations.map((v) => v.code)).toEqual([
      'malformed_json',
      'unknown_type',
      'not_an_object',
    ]);
    expect(heard.frames.map((f) => f.type)).toEqual(['ready']);
    expect(end).toMatchObject({ via: 'synthetic', outcome: { status: 'crashed' } });
    expect(end.protocol).toEqual({ violations: 3, dropped: 6 });
  });
});

describe('what one child may hold open', () => {
  it.each([
    {
      what: 'questions to a person',
      lines: frames(CHILD_BOUNDS.openGates + 3, (id) => ({
        type: 'tool_request',
        id,
        name: 'ask_human',
        args: { question: 'q'.repeat(1000) },
      })),
      served: (heard: Heard) => heard.toolRequests,
      bound: CHILD_BOUNDS.openGates,
    },
    {
      what: 'gate frames',
      lines: frames(CHILD_BOUNDS.openGates + 3, (i) => ({ type: 'gate', node: `g${i}` })),
      served: (heard: Heard) => heard.frames.filter((f) => f.type === 'gate').length,
      bound: CHILD_BOUNDS.openGates,
    },
    {
      what: 'tool requests',
      lines: frames(CHILD_BOUNDS.pendingToolRequests + 3, (id) => ({
        type: 'tool_request',
        id,
        name: 'fs.read',
        args: { path: 'x' },
      })),
      served: (heard: Heard) => heard.toolRequests,
      bound: CHILD_BOUNDS.pendingToolRequests,
    },
    {
      what: 'budget requests',
      lines: frames(CHILD_BOUNDS.pendingBudgetRequests + 3, (id) => ({
        type: 'budget_request',
        id,
        estimate: 10,
      })),
      served: (heard: Heard) => heard.budgetRequests,
      bound: CHILD_BOUNDS.pendingBudgetRequests,
    },
  ])(
    'is bounded for $what: past the bound each is a violation',
    async ({ lines, served, bound }) => {
      const { run, heard } = hostile(hostileEnv(lines));
      const end = await run.result;
      expect(served(heard)).toBe(bound);
      expect(heard.violations.map((v) => v.code)).toEqual([
        'over_bound',
        'over_bound',
        'over_bound',
      ]);
      expect(heard.violations[0]?.line).toBe(bound + 2);
      expect(end.outcome.status).toBe('crashed');
    },
  );

  it('takes a request again once an earlier one has been answered', () => {
    const bounds = new ChildBounds();
    const ask = (id: number) =>
      bounds.admit({ type: 'tool_request', id, name: 'ask_human', args: { question: 'q' } });
    for (let id = 1; id <= CHILD_BOUNDS.openGates; id++) expect(ask(id)).toBeUndefined();
    expect(ask(100)).toMatchObject({ code: 'over_bound' });
    expect(ask(1)).toMatchObject({
      code: 'invalid_frame',
      reason: expect.stringContaining('id 1 is already pending') as unknown,
    });
    bounds.settle('tool', 1);
    expect(ask(101)).toBeUndefined();
  });

  it('is bounded in the size of an event', async () => {
    const big = 'x'.repeat(CHILD_BOUNDS.fieldsChars + 1);
    const lines = frames(3, (i) => ({ type: 'event', event: 'blob', fields: { i, big } }));
    const { run, heard } = hostile(hostileEnv(lines));
    await run.result;
    expect(heard.frames.filter((f) => f.type === 'event')).toEqual([]);
    expect(heard.violations[0]).toMatchObject({ code: 'over_bound', line: 2 });
    expect(heard.violations[0]?.reason).toContain('`blob` fields of');
  });
});
