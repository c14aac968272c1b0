import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Arbor, type ArborEvent } from '../../src/index.js';
import { SqliteStore } from '../../src/store/index.js';
import { collect } from '../api/helpers.js';
import { fakeLlm, steps } from '../helpers/fake-llm.js';
import { frames, hostileEnv } from '../helpers/hostile.js';

const HOSTILE = fileURLToPath(new URL('../fixtures/children/hostile.mjs', import.meta.url));

/** Runs the `hostile` fixture as the root, writing `lines` after `ready`; the run's records. */
async function runChild(lines: string[]) {
  const server = await fakeLlm(steps({ text: 'unused' }));
  const store = join(mkdtempSync(join(tmpdir(), 'arbor-child-events-')), 'arbor.db');
  const arbor = await Arbor.open({
    intelligence: { endpoints: [server.url], model: 'scripted' },
    store,
    security: { sandbox: 'off' },
    grant: { exec: [] },
    childCommand: { command: process.execPath, args: [HOSTILE] },
    env: { ...process.env, ...hostileEnv(lines) },
  });
  const run = arbor.run('Report events.');
  const [result, streamed] = await Promise.all([run.result, collect(run.events)]);
  await arbor.close();
  const opened = new SqliteStore(store);
  try {
    return { result, streamed, stored: opened.listEvents(run.runId) };
  } finally {
    opened.close();
  }
}

describe("a child's event frames", () => {
  it('are checked at the edge: one the schema does not admit is not recorded, and `event.invalid` says why, once per name', async () => {
    const { result, streamed, stored } = await runChild([
      ...frames(3, (i) => ({ type: 'event', event: 'made.up', fields: { i } })),
      JSON.stringify({ type: 'event', event: 'loop.step', fields: { step: 'one' } }),
      JSON.stringify({
        type: 'event',
        event: 'node.end',
        fields: { status: 'completed', via: 'result', exit_code: 0 },
      }),
      JSON.stringify({ type: 'event', event: 'loop.step', fields: { step: 1, extra: 'kept' } }),
      JSON.stringify({ type: 'result', outcome: { status: 'completed', result: 'done' } }),
    ]);
    expect(result.status).toBe('completed');
    const kinds = stored.map((e) => e.kind);
    // Not a violation: the child is still heard, and nothing it says there is kept.
    expect(kinds).not.toContain('made.up');
    expect(kinds).not.toContain('protocol.violation');
    const invalid = stored.filter((e) => e.kind === 'event.invalid').map((e) => e.data);
    expect(invalid).toEqual([
      { name: 'made.up', reason: 'unknown event `made.up`' },
      { name: 'loop.step', reason: expect.stringContaining('`loop.step`: `step`') as unknown },
      {
        name: 'node.end',
        reason: "`node.end` is the supervisor's to record, not a child's to report",
      },
    ]);
    // Once per name: the valid `loop.step` after the invalid one is recorded as it came.
    expect(stored.filter((e) => e.kind === 'loop.step').map((e) => e.data)).toEqual([
      { step: 1, extra: 'kept' },
    ]);
    expect(stored.filter((e) => e.kind === 'node.end')).toHaveLength(1);
    expect(stored.find((e) => e.kind === 'node.end')?.data).not.toHaveProperty('violations');
    // The API streams what the store holds, typed.
    const types = streamed.map((e: ArborEvent) => e.type);
    expect(types.filter((t) => t === 'event.invalid')).toHaveLength(3);
    expect(streamed.find((e) => e.type === 'loop.step')).toMatchObject({ step: 1, extra: 'kept' });
  });
});
