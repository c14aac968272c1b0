import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  Arbor,
  defineTool,
  EVENT_TYPES,
  fromWireEvent,
  isArborError,
  toWireEvent,
  type ArborEvent,
} from '../../src/index.js';
import type { PlaybookInput } from '../../src/testing/index.js';
import { runArbor } from '../helpers/run-arbor.js';
import { fakeLlm } from '../helpers/fake-llm.js';
import { collect, openArbor, weather } from './helpers.js';

const DEMO = fileURLToPath(new URL('../../examples/playbooks/demo.json', import.meta.url));

/** Per node path, the event names in order, each run of deltas counted once. */
function byNode(events: { path?: unknown; name: string }[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const { path: at, name } of events) {
    const list = (out[String(at)] ??= []);
    if (name === 'text.delta' && list.at(-1) === 'text.delta') continue;
    list.push(name);
  }
  return out;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('a run through the API', () => {
  it('gives the same events, in the same order per node, as the NDJSON of the same run from the CLI', async () => {
    const cli = await runArbor(['run', '--mock-llm', DEMO, '--sandbox', 'off', 'Say hello.'], {
      env: { ARBOR_DB: path.join(mkdtempSync(path.join(tmpdir(), 'arbor-api-')), 'a.db') },
    });
    expect(cli.code).toBe(0);
    const lines = cli.stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    // Every NDJSON line is a member of the union and survives the codec unchanged.
    for (const line of lines) expect(toWireEvent(fromWireEvent(line))).toEqual(line);

    const { arbor } = await openArbor(JSON.parse(readFileSync(DEMO, 'utf8')) as PlaybookInput);
    const run = arbor.run('Say hello.');
    const events = await collect(run.events);
    expect((await run.result).status).toBe('completed');
    // The API also streams run-level events (here `sandbox.off`), which have no node.
    expect(events.filter((e) => e.nodeId === undefined).map((e) => e.type)).toEqual([
      'sandbox.off',
    ]);
    const api = byNode(
      events
        .filter((e) => e.nodeId !== undefined)
        .map((e) => ({ path: e.path, name: toWireEvent(e).event as string })),
    );
    const wire = byNode(lines.map((l) => ({ path: l.path, name: l.event as string })));
    expect(api).toEqual(wire);
    expect(Object.keys(api).sort()).toEqual(['0', '0.1', '0.2']);
  });

  it('keeps every event type in step with its wire form', () => {
    for (const type of EVENT_TYPES) {
      const event = {
        type,
        ts: '2026-12-03T00:00:00.000Z',
        runId: 'run_x',
        nodeId: 'n1',
        path: '0.1',
        someField: 1,
        exitCode: 0,
      } as unknown as ArborEvent;
      const wire = toWireEvent(event);
      expect(wire).toMatchObject({ run_id: 'run_x', node_id: 'n1', some_field: 1, exit_code: 0 });
      expect(fromWireEvent(wire)).toEqual(event);
    }
    expect(
      toWireEvent({ ...({} as ArborEvent), type: 'gate.opened', ts: 't', runId: 'r' }).event,
    ).toBe('gate.open');
    expect(() => fromWireEvent({ ts: 't', run_id: 'r', event: 'made.up' })).toThrow(
      /Unknown event `made.up`/,
    );
  });

  it('lets any number of readers read every event, however late they start', async () => {
    const { arbor } = await openArbor({
      scripts: [{ steps: [{ text: 'A streamed answer in several pieces.' }] }],
    });
    const run = arbor.run('Go.');
    const early = collect(run.events);
    const result = await run.result;
    const late = await collect(run.events);
    const first = await early;
    const text = (events: ArborEvent[]) =>
      events.flatMap((e) => (e.type === 'text.delta' ? [e.text] : [])).join('');
    expect(text(first)).toBe(result.text);
    expect(text(late)).toBe(result.text);
    expect(late.filter((e) => e.type !== 'text.delta')).toEqual(
      first.filter((e) => e.type !== 'text.delta'),
    );
    expect(result).toMatchObject({ status: 'completed', exitCode: 0 });
    expect(result.usage.input_tokens).toBeGreaterThan(0);
    expect(result.subtreeUsage).toEqual(result.usage);
  });

  it('cancels the whole tree: the result says cancelled and no child is left running', async () => {
    const { arbor } = await openArbor({
      scripts: [
        { match: { contains: 'Sleeper' }, steps: [{ text: 'never', delay_ms: 60_000 }] },
        {
          steps: [
            { tool_calls: [{ name: 'subagent.run', args: { instruction: 'Sleeper: wait.' } }] },
            { text: 'never' },
          ],
        },
      ],
    });
    const run = arbor.run('Go.');
    const pids: number[] = [];
    for await (const event of run.events) {
      if (event.type === 'child.ready' && event.pid !== undefined) pids.push(event.pid);
      if (pids.length === 2) break;
    }
    await run.cancel('the host changed its mind');
    const result = await run.result;
    expect(result).toMatchObject({ status: 'cancelled', exitCode: 130 });
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
    const ends = (await collect(run.events)).flatMap((e) =>
      e.type === 'node.end' ? [e.status] : [],
    );
    expect(ends.sort()).toEqual(['cancelled', 'cancelled']);
  });

  it('pauses every agent at its next step and resumes them', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const hold = defineTool({
      name: 'hold.on',
      description: 'Waits for the test',
      input: z.object({}),
      run: async () => {
        await gate;
        return 'released';
      },
    });
    const { arbor } = await openArbor(
      {
        scripts: [
          {
            steps: [{ tool_calls: [{ name: 'hold.on', args: {} }] }, { text: 'resumed and done' }],
          },
        ],
      },
      { tools: [hold] },
    );
    const run = arbor.run('Go.');
    const seen: string[] = [];
    const reading = (async () => {
      for await (const event of run.events) {
        seen.push(event.type);
        if (event.type === 'tool.call') {
          await run.pause();
          release();
        }
        if (event.type === 'loop.paused') await run.resume();
      }
    })();
    const result = await run.result;
    await reading;
    expect(result.text).toBe('resumed and done');
    expect(seen.indexOf('loop.paused')).toBeGreaterThan(seen.indexOf('tool.result'));
    expect(seen.indexOf('loop.resumed')).toBeGreaterThan(seen.indexOf('loop.paused'));
  });

  it('puts a policy ask to the host: answered through the handle, or by onAsk', async () => {
    const playbook = {
      scripts: [
        {
          steps: [
            { tool_calls: [{ name: 'weather.lookup', args: { city: 'Oslo' } }] },
            { tool_calls: [{ name: 'weather.lookup', args: { city: 'Bergen' } }] },
            { text: 'done' },
          ],
        },
      ],
    };
    const security = { policy: [{ match: { tool: 'weather.*' }, action: 'ask' as const }] };
    const { arbor } = await openArbor(playbook, {
      tools: [weather],
      security: { ...security, sandbox: 'off' },
    });
    const run = arbor.run('Go.');
    const answers = ['yes', 'no'];
    const decided: unknown[] = [];
    for await (const event of run.events) {
      if (event.type === 'gate.opened' && event.gate !== undefined)
        run.answerGate(event.gate, answers.shift() ?? 'no');
      if (event.type === 'policy.answer') decided.push(event.approved);
    }
    expect((await run.result).status).toBe('completed');
    expect(decided).toEqual([true, false]);
    expect(() => {
      run.answerGate('g9', 'yes');
    }).toThrow(/No open gate `g9`/);

    const asked: string[] = [];
    const { arbor: withHost } = await openArbor(playbook, {
      tools: [weather],
      security: { ...security, sandbox: 'off' },
      onAsk: (question) => {
        asked.push(question.question);
        return 'yes';
      },
    });
    const auto = withHost.run('Go.');
    const events = await collect(auto.events);
    expect((await auto.result).status).toBe('completed');
    expect(asked).toHaveLength(2);
    expect(events.filter((e) => e.type === 'policy.answer' && e.approved)).toHaveLength(2);
  });

  it('runs two Arbor instances in one process on separate stores', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'arbor-two-'));
    const playbook = (answer: string) => ({
      scripts: [{ steps: [{ text: answer, delay_ms: 200 }] }],
    });
    const { arbor: a } = await openArbor(playbook('from A'), { store: path.join(dir, 'a.db') });
    const { arbor: b } = await openArbor(playbook('from B'), { store: path.join(dir, 'b.db') });
    const [ra, rb] = await Promise.all([a.run('one').result, b.run('two').result]);
    expect([ra.text, rb.text]).toEqual(['from A', 'from B']);
    expect(a.runs.list().map((r) => r.id)).toEqual([ra.runId]);
    expect(b.runs.list().map((r) => r.id)).toEqual([rb.runId]);
    expect(a.runs.get(ra.runId)).toMatchObject({ status: 'completed', instruction: 'one' });
    expect(a.runs.events(ra.runId).map((e) => e.type)).toContain('node.end');
  });

  it('close() stops every run and leaves no child running', async () => {
    const { arbor } = await openArbor({
      scripts: [{ steps: [{ text: 'never', delay_ms: 60_000 }] }],
    });
    const run = arbor.run('Go.');
    let pid: number | undefined;
    for await (const event of run.events) {
      if (event.type === 'child.ready') {
        pid = event.pid;
        break;
      }
    }
    await arbor.close();
    expect((await run.result).status).toBe('cancelled');
    expect(pid !== undefined && isAlive(pid)).toBe(false);
  });

  it('refuses bad options with an error naming the option as written', async () => {
    const server = await fakeLlm({ scripts: [{ steps: [{ text: 'x' }] }] });
    const open = (options: Parameters<typeof Arbor.open>[0]) => Arbor.open(options);
    const intelligence = { endpoints: [server.url], model: 'm' };
    await expect(
      open({ intelligence, store: ':memory:', limits: { maxSteps: 0 } }),
    ).rejects.toThrow(/`limits\.maxSteps`/);
    await expect(open({ store: ':memory:' })).rejects.toThrow(/no model endpoint/);
    await expect(
      open({ intelligence, store: ':memory:', grant: { net: ['bad host!'] } }),
    ).rejects.toThrow(/grant\.net/);
    await expect(
      open({ intelligence, store: ':memory:', tools: [weather, weather] }),
    ).rejects.toThrow(/two host tools are named `weather.lookup`/);
    const error = await open({
      intelligence,
      store: ':memory:',
      limits: { deadline: 'soon' },
    }).catch((e: unknown) => e);
    expect(isArborError(error)).toBe(true);
  });
});
