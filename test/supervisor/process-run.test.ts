import { describe, expect, it } from 'vitest';
import type { AgentFrame, ProtocolViolation } from '../../src/protocol/index.js';
import {
  ProcessRun,
  spawnFailure,
  syntheticEnd,
  type ProcessRunHandlers,
} from '../../src/supervisor/index.js';
import { FAST_TIMING, fixtureChild, testPayload } from '../helpers/payloads.js';

function handlers(
  frames: AgentFrame[] = [],
  violations: ProtocolViolation[] = [],
): ProcessRunHandlers {
  return {
    onFrame: (frame) => frames.push(frame),
    onViolation: (violation) => violations.push(violation),
    onToolRequest: () => Promise.resolve({ result: 'ok', is_error: false }),
    onBudgetRequest: () => Promise.resolve({ ok: true }),
  };
}

function start(
  fixture: string,
  frames: AgentFrame[] = [],
  violations: ProtocolViolation[] = [],
  payload = testPayload(),
): ProcessRun {
  return new ProcessRun(payload, {
    command: fixtureChild(fixture),
    env: { PATH: process.env.PATH },
    timing: FAST_TIMING,
    handlers: handlers(frames, violations),
  });
}

describe('ProcessRun with misbehaving children', () => {
  it('reports a child that dies before ready as a spawn failure with its last stderr lines', async () => {
    const run = start('crash-before-ready');
    await expect(run.ready()).rejects.toMatchObject({
      code: 'spawn_failed',
      message: expect.stringContaining('permission denied') as unknown,
      details: { exitCode: 3 },
    });
    const end = await run.result;
    expect(end.via).toBe('synthetic');
    expect(end.outcome.status).toBe('crashed');
  });

  it('names a child that sends no ready the start timeout, not the signal it was stopped with', async () => {
    const run = new ProcessRun(testPayload(), {
      command: fixtureChild('never-ready'),
      env: { PATH: process.env.PATH },
      timing: { ...FAST_TIMING, readyTimeoutMs: 300 },
      handlers: handlers(),
    });
    const error = await run.ready().then(
      () => undefined,
      (reason: unknown) => reason as Error,
    );
    expect(error?.message).toMatch(
      /^child was stopped before `ready`: it sent no `ready` within the start timeout of 300 ms \(it exited with code /,
    );
    await run.result;
  });

  it.each([
    [
      ['{"level":"error","msg":"cannot load the model config: permission denied"}'],
      'cannot load the model config: permission denied',
    ],
    [['plain text, not JSON'], 'plain text, not JSON'],
    [['{"not":"a log line"}'], '{"not":"a log line"}'],
  ])('shows stderr line %j by its message in a spawn failure', (lines, shown) => {
    const error = spawnFailure({ code: 3, signal: null }, undefined, lines);
    expect(error.message).toBe(
      `child exited (code 3, signal null) before \`ready\`; last stderr lines:\n${shown}`,
    );
  });

  it('gives a crash (the reason `node.restart` carries) its stderr log lines by their message', () => {
    const line =
      '{"ts":"2025-01-01T00:00:00Z","level":"error","msg":"out of memory in the tool loop"}';
    const end = syntheticEnd({ code: 1, signal: null }, undefined, [line], undefined);
    expect(end.outcome.reason).toBe(
      'exited (code 1, signal null) without a result; last stderr: out of memory in the tool loop',
    );
  });

  it('joins a failure that ends a sentence to the stderr lines without `.;`', () => {
    const failed = {
      message:
        'MCP server `files` is unavailable: the server exited before it finished connecting.',
    };
    const error = spawnFailure({ code: 1, signal: null }, failed, ['boom']);
    expect(error.message).toContain('finished connecting; last stderr lines:\nboom');
    expect(error.message).not.toContain('.;');
  });

  it('gives a child that exits without a terminal frame a synthetic crashed outcome, after reading its last frames', async () => {
    const frames: AgentFrame[] = [];
    const run = start('exit-without-result', frames);
    await run.ready();
    const end = await run.result;
    expect(end).toMatchObject({ via: 'synthetic', outcome: { status: 'crashed', partial: true } });
    expect(end.outcome.reason).toContain('without a result');
    expect(end.outcome.reason).toContain('segfault in native module');
    // Frames written just before the exit were processed before the exit was.
    expect(frames.map((f) => f.type)).toEqual(expect.arrayContaining(['ready', 'event', 'usage']));
  });

  it('climbs the kill ladder to SIGKILL for a child that ignores cancel and SIGTERM', async () => {
    const run = start('ignore-sigterm');
    await run.ready();
    const ladder = await run.stop('test teardown');
    expect(ladder.steps.map((s) => s.step)).toEqual(['cancel', 'sigterm', 'sigkill']);
    expect(ladder).toMatchObject({ exited: true, forced: true, reason: 'test teardown' });
    const end = await run.result;
    expect(end.exit.signal).toBe('SIGKILL');
    expect(end.outcome.status).toBe('cancelled');
    expect(end.teardown?.steps).toHaveLength(3);
  });

  it('tears down a child that writes garbage on stdout once violations reach the limit', async () => {
    const violations: ProtocolViolation[] = [];
    const run = start('garbage-stdout', [], violations);
    await run.ready();
    const end = await run.result;
    expect(violations.length).toBeGreaterThanOrEqual(FAST_TIMING.violationLimit);
    expect(violations.slice(0, 3).map((v) => v.code)).toEqual([
      'malformed_json',
      'invalid_frame',
      'unknown_type',
    ]);
    expect(end.outcome.status).toBe('crashed');
    expect(end.outcome.reason).toContain('protocol violations');
  });

  it('tears down a child that neither answers pings nor makes progress', async () => {
    const run = start('unresponsive');
    await run.ready();
    const end = await run.result;
    expect(end.outcome.status).toBe('crashed');
    expect(end.outcome.reason).toContain('unresponsive');
    expect(end.teardown?.steps[0]?.step).toBe('cancel');
  });

  it('tears down a child past its deadline plus grace', async () => {
    const run = start('ignore-sigterm', [], [], testPayload({ limits: { deadline_ms: 300 } }));
    await run.ready();
    const end = await run.result;
    expect(end.outcome.status).toBe('deadline');
    expect(end.outcome.reason).toContain('deadline of 300 ms');
    expect(end.exit.signal).toBe('SIGKILL');
  });

  it('tears a child down on its own deadline timer, before any ping, and ends it `deadline` though it answers the cancel with `cancelled`', async () => {
    const frames: AgentFrame[] = [];
    // Pings every 5 s: a teardown that waited for the ping tick would come after one.
    const run = new ProcessRun(testPayload({ limits: { deadline_ms: 100 } }), {
      command: fixtureChild('overstays-deadline'),
      env: { PATH: process.env.PATH },
      timing: { ...FAST_TIMING, pongTimeoutMs: 60_000, progressTimeoutMs: 60_000 },
      handlers: handlers(frames),
    });
    await run.ready();
    const end = await run.result;
    expect(end.via).toBe('result');
    expect(end.outcome.status).toBe('deadline');
    expect(end.outcome.reason).toContain('deadline of 100 ms');
    expect(end.teardown?.steps.map((s) => s.step)).toEqual(['cancel']);
    expect(frames.filter((f) => f.type === 'event' && f.event === 'pinged')).toEqual([]);
  });
});
