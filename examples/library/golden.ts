/**
 * A golden run: a recorded run replayed as a test, with no model and no tool run. The run is
 * recorded here first (against arbor's scripted model) so the example stands alone; a project
 * checks in a run file (`arbor runs export RUN > test/golden/NAME.json`) and replays that.
 *
 *   npx tsx examples/library/golden.ts      (or compile with tsc and run with node)
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Arbor, defineTool } from 'arbor';
import { replayGolden, startFakeLlm } from 'arbor/testing';
import { z } from 'zod';

const lookup = defineTool({
  name: 'stock.lookup',
  description: 'Units in stock for a product code',
  input: z.object({ code: z.string() }),
  run: ({ code }) => ({ code, units: code === 'A1' ? 12 : 0 }),
});

// Record: the root asks a sub-agent to check stock, then answers.
const fake = await startFakeLlm({
  playbook: {
    scripts: [
      {
        match: { contains: 'Stock clerk' },
        steps: [
          { tool_calls: [{ name: 'stock.lookup', args: { code: 'A1' } }] },
          { text: 'A1: 12 units.' },
        ],
      },
      {
        steps: [
          {
            tool_calls: [
              {
                name: 'subagent.run',
                args: { instruction: 'Stock clerk: look up A1.', tools: ['stock.lookup'] },
              },
            ],
          },
          { text: 'We have 12 units of A1.' },
        ],
      },
    ],
  },
});
const store = path.join(mkdtempSync(path.join(tmpdir(), 'arbor-golden-example-')), 'runs.db');
const arbor = await Arbor.open({
  intelligence: {
    endpoints: [fake.url],
    model: 'scripted',
    prices: { scripted: { input_per_mtok: 1, output_per_mtok: 2 } },
  },
  store,
  tools: [lookup],
});
let recorded: string;
try {
  recorded = (await arbor.run('How many units of A1 do we have?').result).runId;
} finally {
  await arbor.close();
  await fake.close();
}

// Replay: no model is called (the scripted model is closed), the host tool does not run.
const golden = await replayGolden(recorded, { store, tools: [lookup] });
assert.deepEqual(golden.divergences, []);
assert.deepEqual(golden.paths(), ['0', '0.1']);
assert.deepEqual(golden.toolsOf('0'), ['subagent.run']);
assert.deepEqual(golden.toolsOf('0.1'), ['stock.lookup']);
assert.deepEqual(golden.refused, []);
assert.ok((golden.recordedUsage.cost_usd ?? 0) <= 0.01, 'the recorded run cost at most one cent');
assert.match(golden.answer, /12 units of A1/);
console.log(`golden run ${golden.runId} replays ${golden.recordedRunId}: ${golden.answer}`);
