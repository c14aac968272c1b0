import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ArborProcess, tempDb } from '../helpers/arbor-process.js';
import { fakeLlm, steps } from '../helpers/fake-llm.js';

/** A playbook answering each message of a warm session by what it last said. */
const byMessage = {
  scripts: [
    { match: { contains: 'third message' }, steps: [{ text: 'answer 3' }] },
    { match: { contains: 'second message' }, steps: [{ text: 'answer 2' }] },
    { match: { contains: 'first message' }, steps: [{ text: 'answer 1' }] },
    { steps: [{ text: 'answer 0' }] },
  ],
};

describe('arbor run --warm', () => {
  it('answers three injected messages on the same transcript, one line each', async () => {
    const server = await fakeLlm(byMessage);
    const arbor = new ArborProcess(
      ['run', '--warm', '--intel', server.url, '--model', 'm', 'Start.'],
      { env: { ARBOR_DB: tempDb() } },
    );
    expect(await arbor.waitForStdoutLines(1)).toEqual(['answer 0']);
    arbor.writeLine('first message');
    arbor.writeLine('second message');
    arbor.writeLine('third message');
    expect(await arbor.waitForStdoutLines(4)).toEqual([
      'answer 0',
      'answer 1',
      'answer 2',
      'answer 3',
    ]);
    arbor.endInput();
    expect((await arbor.exited).code).toBe(0);
    // One transcript: the last request carries every earlier message and answer.
    const last = JSON.stringify(server.requests.at(-1)?.body);
    for (const text of [
      'Start.',
      'first message',
      'answer 1',
      'second message',
      'answer 2',
      'third message',
    ])
      expect(last).toContain(text);
    expect(server.requests).toHaveLength(4);
  });

  it('closes on end of input with a result that keeps the last answer', async () => {
    const server = await fakeLlm(byMessage);
    const arbor = new ArborProcess(
      ['run', '--warm', '--json', '--intel', server.url, '--model', 'm', 'Start.'],
      { env: { ARBOR_DB: tempDb() } },
    );
    await arbor.waitForStdoutLines(1);
    arbor.writeLine('first message');
    await arbor.waitForStdoutLines(2);
    arbor.endInput();
    expect((await arbor.exited).code).toBe(0);
    const lines = arbor.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.slice(0, 2)).toEqual([
      { status: 'completed', result: 'answer 0' },
      { status: 'completed', result: 'answer 1' },
    ]);
    expect(lines[2]).toMatchObject({
      status: 'completed',
      result: 'answer 1',
      reason: expect.stringContaining('session closed') as unknown,
    });
  });

  it('ends stalled when it gives the same answer three turns running', async () => {
    const server = await fakeLlm(steps({ text: 'I cannot help with that.' }));
    const arbor = new ArborProcess(
      ['run', '--warm', '--intel', server.url, '--model', 'm', 'Start.'],
      { env: { ARBOR_DB: tempDb() } },
    );
    await arbor.waitForStdoutLines(1);
    arbor.writeLine('please');
    arbor.writeLine('pretty please');
    const { code } = await arbor.exited;
    expect(code).toBe(3);
    expect(arbor.stderr).toContain('run ended stalled: the same answer 3 turns running');
  });

  it('pauses at the next step on SIGUSR1 and goes on after SIGUSR2', async () => {
    const server = await fakeLlm(
      steps(
        { tool_calls: [{ name: 'sleep', args: { ms: 300 } }] },
        { text: 'done after the pause' },
      ),
    );
    const arbor = new ArborProcess(['run', '--intel', server.url, '--model', 'm', 'x'], {
      env: { ARBOR_DB: tempDb() },
    });
    await server.waitForRequests(1);
    arbor.signal('SIGUSR1');
    await arbor.waitForEvent('loop.paused');
    expect(server.requests).toHaveLength(1);
    arbor.signal('SIGUSR2');
    await arbor.waitForEvent('loop.resumed');
    expect((await arbor.exited).code).toBe(0);
    expect(arbor.stdout).toBe('done after the pause\n');
    expect(server.requests).toHaveLength(2);
  });

  it('hot-swaps the intelligence on SIGHUP: the next turn goes to the new endpoint', async () => {
    const first = await fakeLlm(steps({ text: 'from the first server' }));
    const second = await fakeLlm(steps({ text: 'from the second server' }));
    const config = join(mkdtempSync(join(tmpdir(), 'arbor-swap-')), 'arbor.toml');
    const write = (url: string): void => {
      writeFileSync(config, `[intelligence]\nmodel = "m"\nendpoints = ["${url}"]\n`);
    };
    write(first.url);
    const arbor = new ArborProcess(['run', '--warm', '--config', config, 'Start.'], {
      env: { ARBOR_DB: tempDb() },
    });
    expect(await arbor.waitForStdoutLines(1)).toEqual(['from the first server']);
    write(second.url);
    arbor.signal('SIGHUP');
    await arbor.waitForEvent('intel.swap');
    arbor.writeLine('again');
    expect(await arbor.waitForStdoutLines(2)).toEqual([
      'from the first server',
      'from the second server',
    ]);
    await arbor.waitForEvent('intel.swapped');
    arbor.endInput();
    expect((await arbor.exited).code).toBe(0);
    expect(first.requests).toHaveLength(1);
    expect(second.requests).toHaveLength(1);
  });

  describe('when its child is killed mid-session', () => {
    /** Starts a session, waits for the first answer, and kills the child that gave it. */
    async function killedOnce(): Promise<ArborProcess> {
      const server = await fakeLlm(byMessage);
      const arbor = new ArborProcess(
        ['run', '--warm', '--intel', server.url, '--model', 'm', 'Start.'],
        { env: { ARBOR_DB: tempDb() } },
      );
      expect(await arbor.waitForStdoutLines(1)).toEqual(['answer 0']);
      const { pid } = await arbor.waitForEvent('child.ready');
      process.kill(pid as number, 'SIGKILL');
      return arbor;
    }

    it('restarts it and answers the next message without repeating the first answer', async () => {
      const arbor = await killedOnce();
      await arbor.waitForEvent('child.ready', (line) => line.attempt === 2);
      arbor.writeLine('first message');
      await arbor.waitForStdoutLines(2);
      arbor.endInput();
      expect((await arbor.exited).code).toBe(0);
      expect(arbor.stdout).toBe('answer 0\nanswer 1\n');
    });

    it('closes when its input ends while the child is down, without waiting out a timeout', async () => {
      const arbor = await killedOnce();
      arbor.endInput();
      expect((await arbor.exited).code).toBe(0);
      expect(arbor.stdout).toBe('answer 0\n');
      expect(arbor.events.filter((line) => line.event === 'child.teardown')).toEqual([]);
      expect(arbor.events.find((line) => line.event === 'node.end')).toMatchObject({
        status: 'completed',
        reason: 'session closed: input ended',
      });
    });
  });
});
