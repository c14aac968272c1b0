import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentFrame } from '../../src/protocol/index.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { ChildProcess, NodeRunner, type Timing } from '../../src/supervisor/index.js';
import { FAST_TIMING, fixtureChild, testPayload } from '../helpers/payloads.js';

function runner(
  env: NodeJS.ProcessEnv,
  frames: AgentFrame[],
  restarts: { attempt: number; delayMs: number }[],
  timing: Partial<Timing> = {},
  teardowns: string[] = [],
): NodeRunner {
  return new NodeRunner({
    payload: testPayload({ warm: true }),
    startChild: () => {
      const { command, args } = fixtureChild('flaky-warm');
      return new ChildProcess({ command, args, env: { PATH: process.env.PATH, ...env } });
    },
    timing: { ...FAST_TIMING, restartBaseMs: 20, restartCapMs: 100, ...timing },
    now: () => Date.now(),
    handlers: {
      onFrame: (frame) => frames.push(frame),
      onToolRequest: () => Promise.resolve({ result: null, is_error: true }),
      onBudgetRequest: () => Promise.resolve({ ok: true }),
      onTeardown: (reason) => teardowns.push(reason),
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

  it('does not repeat the answer to the instruction when a restarted child gives it again', async () => {
    const marker = join(mkdtempSync(join(tmpdir(), 'arbor-flaky-')), 'marker');
    const frames: AgentFrame[] = [];
    const node = runner({ ARBOR_FIXTURE_MARKER: marker }, frames, []);
    const ended = node.run();
    await until(() => frames.some((f) => f.type === 'turn'));
    node.send({ type: 'inject', message: 'hello' });
    await until(() =>
      frames.some((f) => f.type === 'turn' && f.outcome.result === 'answered: hello'),
    );
    expect(node.attempt).toBe(2);
    // The restarted child answered `started` again; only the first answer came through.
    const turns = frames.flatMap((f) => (f.type === 'turn' ? [f.outcome.result] : []));
    expect(turns).toEqual(['started', 'answered: hello']);
    await node.stop('done');
    await ended;
  });

  it('closes a session whose close was asked for while its child was down', async () => {
    const marker = join(mkdtempSync(join(tmpdir(), 'arbor-flaky-')), 'marker');
    const frames: AgentFrame[] = [];
    const teardowns: string[] = [];
    const restarts: { attempt: number; delayMs: number }[] = [];
    // The ready timeout is short: a close that is lost would be noticed only by that timer.
    const node = runner({ ARBOR_FIXTURE_MARKER: marker }, frames, restarts, {}, teardowns);
    const ended = node.run();
    await until(() => frames.some((f) => f.type === 'turn'));
    // The child dies on the message, before it reads the close that follows it.
    node.send({ type: 'inject', message: 'hello' });
    node.send({ type: 'cancel', reason: 'input ended' });
    const end = await ended;
    expect(restarts.map((r) => r.attempt)).toEqual([2]);
    expect(end).toMatchObject({
      via: 'result',
      outcome: { status: 'completed', result: 'closed' },
    });
    expect(end.teardown).toBeUndefined();
    expect(teardowns).toEqual([]);
  });

  it('keeps a ready child that outlives the ready timeout', async () => {
    const frames: AgentFrame[] = [];
    const teardowns: string[] = [];
    const marker = join(mkdtempSync(join(tmpdir(), 'arbor-flaky-')), 'marker');
    const node = runner(
      { ARBOR_FIXTURE_MARKER: marker },
      frames,
      [],
      { readyTimeoutMs: 300 },
      teardowns,
    );
    const ended = node.run();
    await until(() => frames.some((f) => f.type === 'turn'));
    // Nothing to await here but time itself: the child idles past its ready timeout.
    await sleep(900);
    expect(teardowns).toEqual([]);
    node.send({ type: 'cancel', reason: 'done' });
    const end = await ended;
    expect(end).toMatchObject({ via: 'result', outcome: { result: 'closed' } });
    expect(end.teardown).toBeUndefined();
  });
});
