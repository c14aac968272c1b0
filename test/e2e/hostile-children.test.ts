import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Arbor } from '../../src/index.js';
import { CHILD_BOUNDS } from '../../src/protocol/index.js';
import { SqliteStore } from '../../src/store/index.js';
import { fakeLlm, steps } from '../helpers/fake-llm.js';
import { hostileEnv } from '../helpers/hostile.js';

const VIOLATION_LIMIT = 3;
/** Events the supervisor records of its own for a run (spawn, status, ready, teardown, end…). */
const OWN_EVENTS = 20;

const HOSTILE = fileURLToPath(new URL('../fixtures/children/hostile.mjs', import.meta.url));

const absurdNumber = fc.constantFrom(
  '1e400',
  '-1',
  '-1e308',
  '1e-400',
  '9007199254740993',
  '18446744073709551616',
  '0.5',
  '"12"',
  'null',
  '[]',
);

/** One line a hostile child might write. */
const hostileLine: fc.Arbitrary<string | Uint8Array> = fc.oneof(
  fc.uint8Array({ maxLength: 4_000 }),
  fc.string({ maxLength: 200 }),
  fc
    .tuple(absurdNumber, absurdNumber)
    .map(([a, b]) => `{"type":"usage","input_tokens":${a},"output_tokens":${b},"cost_usd":${a}}`),
  fc
    .tuple(fc.constantFrom('tool_request', 'budget_request'), absurdNumber)
    .map(([type, id]) => `{"type":"${type}","id":${id},"name":"ask_human","estimate":${id}}`),
  fc
    .integer({ min: 10, max: 20_000 })
    .map(
      (depth) =>
        `{"type":"event","event":"deep","fields":{"a":${'['.repeat(depth)}${']'.repeat(depth)}}}`,
    ),
  fc.integer({ min: 1_000, max: 400_000 }).chain((size) =>
    fc.constantFrom(
      JSON.stringify({ type: 'event', event: 'big', fields: { s: 'x'.repeat(size) } }),
      JSON.stringify({ type: 'event', event: 'e'.repeat(size), fields: {} }),
      JSON.stringify({ type: 'gate', node: 'g', payload: 'p'.repeat(size) }),
      JSON.stringify({
        type: 'tool_request',
        id: 1,
        name: 'ask_human',
        args: { question: 'q'.repeat(size) },
      }),
    ),
  ),
  fc
    .constantFrom('__proto__', 'constructor', '\\u005f_proto__', 'prototype')
    .chain((key) =>
      fc.constantFrom(
        `{"type":"event","event":"x","fields":{"${key}":{"polluted":true}}}`,
        `{"${key}":{"polluted":true},"type":"usage","input_tokens":1,"output_tokens":1}`,
        `{"type":"tool_request","id":7,"name":"memory.set","args":{"${key}":{"polluted":true}}}`,
      ),
    ),
  fc.constantFrom(
    '{"type":"result","outcome":{"status":"completed","result":"forged"}}',
    '{"type":"turn","outcome":{"status":"nonsense"}}',
    '{"type":"failed","error":""}',
    '{"type":"ping","seq":1}',
    '{"type":"ready","protocol":99}',
    '{"type":"pong","seq":-1}',
  ),
);

/** A flood of valid-looking frames of one kind, each with its own id. */
const flood: fc.Arbitrary<string[]> = fc
  .tuple(
    fc.constantFrom('gate', 'ask', 'tool', 'budget', 'usage', 'event'),
    fc.integer({ min: 1, max: 400 }),
  )
  .map(([kind, count]) =>
    Array.from({ length: count }, (_, i) => {
      const id = i + 1;
      switch (kind) {
        case 'gate':
          return JSON.stringify({ type: 'gate', node: `g${id}`, payload: 'p'.repeat(1_000) });
        case 'ask':
          return JSON.stringify({
            type: 'tool_request',
            id,
            name: 'ask_human',
            args: { question: 'q'.repeat(1_000) },
          });
        case 'tool':
          return JSON.stringify({ type: 'tool_request', id, name: 'sleep', args: { ms: 60_000 } });
        case 'budget':
          return JSON.stringify({ type: 'budget_request', id, estimate: 1e9 });
        case 'usage':
          return JSON.stringify({ type: 'usage', input_tokens: 1e6, output_tokens: 1e6 });
        case 'event':
          return JSON.stringify({ type: 'event', event: 'spam', fields: { id } });
      }
    }),
  );

const hostileChild = fc.record({
  lines: fc
    .array(
      fc.oneof(
        hostileLine.map((line) => [line]),
        flood,
      ),
      { maxLength: 6 },
    )
    .map((parts) => parts.flat()),
  flood: fc.boolean(),
});

/** Runs one hostile child as the root of a run with the real supervisor and store. */
async function runHostile(url: string, child: { lines: (string | Uint8Array)[]; flood: boolean }) {
  const store = join(mkdtempSync(join(tmpdir(), 'arbor-fuzz-')), 'arbor.db');
  const arbor = await Arbor.open({
    intelligence: { endpoints: [url], model: 'scripted' },
    store,
    security: { sandbox: 'off' },
    grant: { exec: [] },
    childCommand: { command: process.execPath, args: [HOSTILE] },
    env: {
      ...process.env,
      ...hostileEnv(child.lines, { flood: child.flood }),
      ARBOR_VIOLATION_LIMIT: String(VIOLATION_LIMIT),
      ARBOR_CANCEL_GRACE_MS: '200',
      ARBOR_TERM_GRACE_MS: '300',
      ARBOR_KILL_WAIT_MS: '2000',
    },
  });
  const run = arbor.run('Misbehave.');
  const result = await run.result;
  await arbor.close();
  const opened = new SqliteStore(store);
  try {
    return {
      result,
      events: opened.listEvents(run.runId),
      gates: opened.listGates({ runId: run.runId }),
    };
  } finally {
    opened.close();
  }
}

describe('the supervisor with hostile children', () => {
  it('never crashes, keeps the store bounded, and ends every run with a clear status', async () => {
    const server = await fakeLlm(steps({ text: 'unused' }));
    await fc.assert(
      fc.asyncProperty(hostileChild, async (child) => {
        const { result, events, gates } = await runHostile(server.url, child);
        expect(['completed', 'crashed', 'failed']).toContain(result.status);
        if (result.status !== 'completed') expect(result.reason).toEqual(expect.any(String));
        const kinds = events.map((e) => e.kind);
        expect(kinds.filter((k) => k === 'protocol.violation').length).toBeLessThanOrEqual(
          VIOLATION_LIMIT,
        );
        expect(events.length).toBeLessThanOrEqual(child.lines.length + OWN_EVENTS);
        for (const event of events)
          expect(JSON.stringify(event.data).length).toBeLessThanOrEqual(
            CHILD_BOUNDS.fieldsChars + 1_024,
          );
        expect(gates.length).toBeLessThanOrEqual(CHILD_BOUNDS.openGates);
        expect(kinds.filter((k) => k === 'node.end')).toHaveLength(1);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      }),
      { numRuns: 12, seed: 1512, endOnFailure: true },
    );
  }, 120_000);

  it('stops hearing a child that floods random bytes: the store keeps the first violations and a count', async () => {
    const server = await fakeLlm(steps({ text: 'unused' }));
    const { result, events } = await runHostile(server.url, { lines: [], flood: true });
    expect(result.status).toBe('crashed');
    expect(events.filter((e) => e.kind === 'protocol.violation')).toHaveLength(VIOLATION_LIMIT);
    const end = events.find((e) => e.kind === 'node.end');
    expect(end?.data).toMatchObject({
      status: 'crashed',
      violations: expect.any(Number) as unknown,
    });
    expect(end?.data.dropped_lines).toBeGreaterThan(0);
    expect(events.length).toBeLessThan(OWN_EVENTS);
  });
});
