import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ArborProcess, isAlive, tempDb } from '../helpers/arbor-process.js';
import { fakeLlm, steps } from '../helpers/fake-llm.js';
import { runArbor } from '../helpers/run-arbor.js';

function fixture(name: string): string {
  return `${process.execPath} ${fileURLToPath(new URL(`../fixtures/children/${name}.mjs`, import.meta.url))}`;
}

async function waitUntil(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('arbor run: child lifecycle', () => {
  it('reports a child that crashes before ready, with its last stderr lines', async () => {
    const { code, stderr } = await runArbor(
      ['run', '--intel', 'http://127.0.0.1:9/v1', '--model', 'm', 'x'],
      {
        env: { ARBOR_DB: tempDb(), ARBOR_CHILD_COMMAND: fixture('crash-before-ready') },
      },
    );
    expect(code).toBe(1);
    expect(stderr).toContain('the root agent could not start: child exited (code 3');
    expect(stderr).toContain('cannot load the model config: permission denied');
  });

  it('climbs the kill ladder for a child that ignores cancel and SIGTERM', async () => {
    const arbor = new ArborProcess(
      ['run', '--intel', 'http://127.0.0.1:9/v1', '--model', 'm', '--deadline', '500ms', 'x'],
      {
        env: { ARBOR_DB: tempDb(), ARBOR_CHILD_COMMAND: fixture('ignore-sigterm') },
      },
    );
    const killed = await arbor.waitForEvent('child.killed');
    expect((killed.steps as { step: string }[]).map((s) => s.step)).toEqual([
      'cancel',
      'sigterm',
      'sigkill',
    ]);
    expect(killed).toMatchObject({ forced: true, exited: true });
    expect((await arbor.exited).code).toBe(7);
    expect(arbor.stderr).toContain('run ended deadline');
  });

  it('tears down a child that writes garbage on its stdout', async () => {
    const arbor = new ArborProcess(
      ['run', '--intel', 'http://127.0.0.1:9/v1', '--model', 'm', 'x'],
      {
        env: { ARBOR_DB: tempDb(), ARBOR_CHILD_COMMAND: fixture('garbage-stdout') },
      },
    );
    const violation = await arbor.waitForEvent('protocol.violation');
    expect(violation).toMatchObject({ code: 'malformed_json' });
    expect((await arbor.exited).code).toBe(1);
    expect(arbor.stderr).toContain('run ended crashed: 3 protocol violations');
  });

  it('gives a child that exits without a result a crashed outcome', async () => {
    const { code, stderr } = await runArbor(
      ['run', '--intel', 'http://127.0.0.1:9/v1', '--model', 'm', 'x'],
      {
        env: { ARBOR_DB: tempDb(), ARBOR_CHILD_COMMAND: fixture('exit-without-result') },
      },
    );
    expect(code).toBe(1);
    expect(stderr).toContain('run ended crashed: exited (code 0, signal null) without a result');
  });

  it('drains on SIGINT: the child is cancelled mid model call and the run exits 130', async () => {
    const server = await fakeLlm(steps({ text: 'slow', delay_ms: 30_000 }));
    const arbor = new ArborProcess(['run', '--intel', server.url, '--model', 'm', 'x'], {
      env: { ARBOR_DB: tempDb() },
    });
    await server.waitForRequests(1);
    arbor.signal('SIGINT');
    const { code } = await arbor.exited;
    expect(code).toBe(130);
    expect(arbor.stderr).toContain('run ended cancelled');
  });

  it('forces SIGKILL on a second SIGINT instead of waiting out the ladder', async () => {
    const arbor = new ArborProcess(
      ['run', '--intel', 'http://127.0.0.1:9/v1', '--model', 'm', 'x'],
      {
        env: {
          ARBOR_DB: tempDb(),
          ARBOR_CHILD_COMMAND: fixture('ignore-sigterm'),
          ARBOR_CANCEL_GRACE_MS: '60000',
          ARBOR_TERM_GRACE_MS: '60000',
        },
      },
    );
    await arbor.waitForEvent('child.ready');
    arbor.signal('SIGINT');
    await arbor.waitForEvent('child.teardown');
    arbor.signal('SIGINT');
    const killed = await arbor.waitForEvent('child.killed');
    expect((killed.steps as { step: string }[]).at(-1)?.step).toBe('sigkill');
    expect((await arbor.exited).code).toBe(130);
  });

  it('leaves no child behind when the supervisor is SIGKILLed', async () => {
    const server = await fakeLlm(steps({ fault: { kind: 'hang' } }));
    const arbor = new ArborProcess(['run', '--intel', server.url, '--model', 'm', 'x'], {
      env: { ARBOR_DB: tempDb() },
    });
    const ready = await arbor.waitForEvent('child.ready');
    const pid = ready.pid as number;
    await server.waitForRequests(1);
    expect(isAlive(pid)).toBe(true);
    arbor.signal('SIGKILL');
    await arbor.exited;
    await waitUntil(() => !isAlive(pid));
    expect(isAlive(pid)).toBe(false);
  });
});
