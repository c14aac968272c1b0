import { describe, expect, it } from 'vitest';
import { createModelClient } from '../../src/intel/index.js';
import { AgentSession } from '../../src/loop/index.js';
import { LimitsSchema, type Dialect } from '../../src/protocol/index.js';
import { ToolSet } from '../helpers/tool-set.js';
import { fakeLlm, steps, testIntel } from '../helpers/fake-llm.js';

const ANSWER = 'The first part of a long answer, and then the second part that follows it.';

async function streamedTurn(dialect: Dialect, playbooks: Parameters<typeof fakeLlm>[0][]) {
  const servers = await Promise.all(playbooks.map((playbook) => fakeLlm(playbook)));
  const model = createModelClient(
    testIntel(
      servers.map((server) => ({
        url: dialect === 'openai' ? server.url : server.url.replace(/\/v1$/, ''),
        dialect,
        headers: {},
      })),
    ),
  );
  const events: { kind: string; fields: Record<string, unknown> }[] = [];
  const agent = new AgentSession({
    model,
    tools: new ToolSet([]),
    system: 'You test.',
    transcript: [{ role: 'user', text: 'Go.' }],
    limits: LimitsSchema.parse({}),
    hooks: { onEvent: ({ type, ...fields }) => events.push({ kind: type, fields }) },
  });
  const report = await agent.runTurn(undefined, { signal: new AbortController().signal });
  return { servers, events, report };
}

/** What a watcher shows: deltas appended, everything since the last reset dropped. */
function watched(events: { kind: string; fields: Record<string, unknown> }[]): string {
  let text = '';
  for (const { kind, fields } of events) {
    if (kind === 'text.delta') text += String(fields.text);
    if (kind === 'text.reset') text = '';
  }
  return text;
}

describe.each(['openai', 'anthropic', 'openai-responses'] as const)(
  'a streamed turn (%s)',
  (dialect) => {
    it('streams the answer as text.delta events that add up to it', async () => {
      const { servers, events, report } = await streamedTurn(dialect, [steps({ text: ANSWER })]);
      const deltas = events.filter((e) => e.kind === 'text.delta');
      expect(deltas.length).toBeGreaterThan(1);
      expect(watched(events)).toBe(ANSWER);
      expect(report.outcome).toMatchObject({ status: 'completed', result: ANSWER });
      expect(servers[0]?.requests[0]?.stream).toBe(true);
    });

    it('a stream cut mid-answer fails over: text.reset, then the whole answer from the other endpoint', async () => {
      const { servers, events, report } = await streamedTurn(dialect, [
        steps({ text: ANSWER, fault: { kind: 'cut' } }),
        steps({ text: ANSWER }),
      ]);
      const kinds = events.map((e) => e.kind);
      const reset = kinds.indexOf('text.reset');
      expect(reset).toBeGreaterThan(0);
      // Part of the answer was shown before the cut, and the retry streamed it again from the start.
      expect(kinds.slice(0, reset)).toContain('text.delta');
      expect(watched(events)).toBe(ANSWER);
      expect(report.outcome).toMatchObject({ status: 'completed', result: ANSWER });
      expect(servers[0]?.requests[0]?.fault).toBe('cut');
      expect(servers[1]?.requests).toHaveLength(1);
    });

    it('a cut on the only endpoint is retried there; a stream that keeps breaking fails the turn', async () => {
      const once = await streamedTurn(dialect, [
        steps({ text: ANSWER, faults: [{ kind: 'cut' }] }),
      ]);
      expect(once.report.outcome).toMatchObject({ status: 'completed', result: ANSWER });
      expect(once.events.filter((e) => e.kind === 'text.reset')).toHaveLength(1);

      const always = streamedTurn(dialect, [steps({ text: ANSWER, fault: { kind: 'cut' } })]);
      await expect(always).rejects.toThrow(/broke off a streamed answer/);
    });
  },
);
