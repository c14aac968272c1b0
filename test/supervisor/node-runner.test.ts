import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentFrame } from '../../src/protocol/index.js';
import { ChildProcess, NodeRunner } from '../../src/supervisor/index.js';
import { FAST_TIMING, fixtureChild, testPayload } from '../helpers/payloads.js';

function runner(
  env: NodeJS.ProcessEnv,
  frames: AgentFrame[],
  restarts: { attempt: number; delayMs: number }[],
): NodeRunner {
  return new NodeRunner({
    payload: testPayload({ warm: true }),
    startChild: () => {
      const { command, args } = fixtureChild('flaky-warm');
      return new ChildProcess({ command, args, env: { PATH: process.env.PATH, ...env } });
    },
    timing: { ...FAST_TIMING, restartBaseMs: 20, restartCapMs: 100 },
    now: () => Date.now(),
    handlers: {
      onFrame: (frame) => frames.push(frame),
      onToolRequest: () => Promise.resolve({ result: null, is_error: true }),
      onBudgetRequest: () => Promise.resolve({ ok: true }),
    },
    onRestart: (attempt, delayMs) => restarts.push({ attempt, delayMs }),
  });
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('NodeRunner: the restart governor for warm children', () => {
  it('restarts a warm child that crashed and delivers the message it had not answered', async () => {
    const marker = join(mkdtempSync(join(tmpdir(), 'arbor-flaky-')), 'marker');
    const frames: AgentFrame[] = [];
    const restarts: { attempt: number; delayMs: number }[] = [];
    const node = runner({ ARBOR_FIXTURE_MARKER: marker }, frames, restarts);
    const ended = node.run();
    await until(() => frames.some((f) => f.type === 'turn'));
    node.send({ type: 'inject', message: 'hello' });
    await until(() =>
      frames.some((f) => f.type === 'turn' && f.outcome.result === 'answered: hello'),
    );
    expect(restarts).toEqual([{ attempt: 2, delayMs: expect.any(Number) as unknown }]);
    expect(restarts[0]!.delayMs).toBeGreaterThanOrEqual(10);
    expect(restarts[0]!.delayMs).toBeLessThanOrEqual(20);
    expect(node.attempt).toBe(2);
    await node.stop('done');
    expect((await ended).outcome).toMatchObject({ status: 'completed', result: 'closed' });
  });

  it('stops restarting once the breaker opens, with backoff growing between attempts', async () => {
    const marker = join(mkdtempSync(join(tmpdir(), 'arbor-flaky-')), 'marker');
    const frames: AgentFrame[] = [];
    const restarts: { attempt: number; delayMs: number }[] = [];
    const node = runner(
      { ARBOR_FIXTURE_MARKER: marker, ARBOR_FIXTURE_CRASH_ALWAYS: '1' },
      frames,
      restarts,
    );
    const ended = node.run();
    await until(() => frames.some((f) => f.type === 'turn'));
    node.send({ type: 'inject', message: 'crash me' });
    const end = await ended;
    expect(end.outcome.status).toBe('crashed');
    expect(end.outcome.reason).toContain('restart breaker open: 5 weighted failures');
    expect(restarts.map((r) => r.attempt)).toEqual([2, 3, 4, 5]);
    // Exponential backoff with jitter: each ceiling doubles (20, 40, 80, then the 100 cap).
    expect(restarts[3]!.delayMs).toBeGreaterThanOrEqual(50);
    expect(node.attempt).toBe(5);
  });
});
