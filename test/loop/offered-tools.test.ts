import { describe, expect, it } from 'vitest';
import { createModelClient } from '../../src/intel/index.js';
import { AgentSession } from '../../src/loop/index.js';
import { toolsDigest } from '../../src/loop/offered-tools.js';
import {
  LimitsSchema,
  toStoredEvent,
  type ChildEvent,
  type ToolDef,
} from '../../src/protocol/index.js';
import { modelCallsOf } from '../../src/store/model-calls.js';
import type { EventRecord } from '../../src/store/store-port.js';
import type { Tool } from '../../src/tools/index.js';
import { fakeLlm, steps, testIntel } from '../helpers/fake-llm.js';
import { ToolSet } from '../helpers/tool-set.js';

const EXTRA: ToolDef = {
  name: 'test.extra',
  description: 'appears once unlocked',
  input_schema: { type: 'object', properties: { n: { type: 'integer' } } },
};

/** A tool host whose set grows mid-turn: `test.unlock` adds `test.extra` to what is offered. */
class GrowingSet extends ToolSet {
  unlocked = false;
  override definitions(): readonly ToolDef[] {
    const defs = super.definitions();
    return this.unlocked ? [...defs, EXTRA] : defs;
  }
}

describe('the tools each model call offered', () => {
  it('names the set by digest on every call and reports it once, again only when it changes', async () => {
    const server = await fakeLlm(
      steps(
        { tool_calls: [{ name: 'test.unlock', args: {} }] },
        { tool_calls: [{ name: 'test.unlock', args: {} }] },
        { text: 'done' },
      ),
    );
    const unlock: Tool = {
      def: { name: 'test.unlock', description: 'unlock', input_schema: { type: 'object' } },
      run: () => {
        host.unlocked = true;
        return Promise.resolve({ content: 'unlocked', isError: false });
      },
    };
    const host = new GrowingSet([unlock]);
    const events: ChildEvent[] = [];
    const agent = new AgentSession({
      model: createModelClient(testIntel([{ url: server.url, dialect: 'openai', headers: {} }])),
      tools: host,
      system: 'You test.',
      transcript: [{ role: 'user', text: 'Go.' }],
      limits: LimitsSchema.parse({}),
      hooks: { onEvent: (event) => events.push(event) },
    });
    const report = await agent.runTurn(undefined, { signal: new AbortController().signal });
    expect(report.outcome.status).toBe('completed');

    const recorded = events.filter((e) => e.type === 'model.tools' || e.type === 'model.call');
    expect(recorded.map((e) => e.type)).toEqual([
      'model.tools',
      'model.call',
      'model.tools',
      'model.call',
      'model.call',
    ]);
    const sets = events.flatMap((e) => (e.type === 'model.tools' ? [e] : []));
    const names = sets.map((set) =>
      typeof set.tools === 'string' ? [] : set.tools.map((tool) => tool.name),
    );
    expect(names).toEqual([
      ['test.unlock', 'finish'],
      ['test.unlock', 'test.extra', 'finish'],
    ]);
    const digests = events.flatMap((e) => (e.type === 'model.call' ? [e.toolsDigest] : []));
    expect(digests).toEqual([sets[0]?.digest, sets[1]?.digest, sets[1]?.digest]);
    expect(sets[0]?.digest).not.toBe(sets[1]?.digest);

    // Read back as the store reads them: each call with the very set it offered, by step.
    const records: EventRecord[] = events.map((event, seq) => ({
      seq,
      runId: 'r1',
      nodeId: 'n1',
      ts: 0,
      ...toStoredEvent(event),
    }));
    const { calls, tools } = modelCallsOf(records);
    const read = (calls.get('n1') ?? []).map((call) => ({
      call: call.call,
      step: call.step,
      tools: tools.get(call.tools_digest ?? '')?.map((tool) => tool.name),
    }));
    expect(read).toEqual([
      { call: 1, step: 1, tools: ['test.unlock', 'finish'] },
      { call: 2, step: 2, tools: ['test.unlock', 'test.extra', 'finish'] },
      { call: 3, step: 3, tools: ['test.unlock', 'test.extra', 'finish'] },
    ]);
    expect(tools.get(sets[1]?.digest ?? '')?.find((t) => t.name === 'test.extra')).toEqual(EXTRA);
  });

  it('digests a set by its content and order, not by its objects', () => {
    const a: ToolDef = { name: 'a', description: '', input_schema: { type: 'object' } };
    const b: ToolDef = { name: 'b', description: '', input_schema: { type: 'object' } };
    expect(toolsDigest([a, b])).toBe(toolsDigest([{ ...a }, { ...b }]));
    expect(toolsDigest([a, b])).not.toBe(toolsDigest([b, a]));
    expect(toolsDigest([a])).not.toBe(
      toolsDigest([{ ...a, input_schema: { type: 'object', required: ['x'] } }]),
    );
    expect(toolsDigest([a])).toMatch(/^[0-9a-f]{16}$/);
  });
});
