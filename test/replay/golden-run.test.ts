import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/index.js';
import { replayGolden } from '../../src/testing/index.js';
import { replayDir, treePlaybook } from '../helpers/replay-fixtures.js';

/** Records the replay fixture's tree (Side's script as given) and exports it as a run file. */
async function goldenFile(playbook = treePlaybook()) {
  const dir = await replayDir();
  const { runId, llm } = await dir.record(playbook);
  const exported = await dir.arbor(['runs', 'export', runId]);
  expect(exported.code, exported.stderr).toBe(0);
  const file = join(dir.dir, 'golden.json');
  await writeFile(file, exported.stdout);
  return { file, runId, llm };
}

/** What the golden test of the fixture's tree asserts: run by every test below. */
function assertGolden(golden: Awaited<ReturnType<typeof replayGolden>>): void {
  expect(golden.divergences).toEqual([]);
  expect(golden.paths()).toEqual(['0', '0.1', '0.1.1', '0.2']);
  expect(golden.toolsOf('0')).toEqual(['subagent.run', 'subagent.run', 'ask_human']);
  expect(golden.toolsOf('0.1')).toEqual(['fs.read', 'subagent.run']);
  expect(golden.toolsOf('0.2')).toEqual(['fs.list']);
  expect(golden.refused).toEqual([]);
  expect(golden.answer).toBe('Root done: both children answered and the person said yes.');
}

describe('golden runs from arbor/testing', () => {
  it('replays an exported run file: tree shape, tools per node, recorded usage, no refusal, the answer', async () => {
    const { file, llm, runId } = await goldenFile();
    const calls = llm.requests.length;
    const golden = await replayGolden(file);
    assertGolden(golden);
    expect(golden.status).toBe('completed');
    expect(golden.recordedRunId).toBe(runId);
    expect(golden.recordedUsage.input_tokens).toBeGreaterThan(0);
    expect(llm.requests.length).toBe(calls);
  });

  it('fails when a node calls a tool more than the golden run says', async () => {
    const more = treePlaybook();
    const side = more.scripts.find((s) => JSON.stringify(s.match ?? {}).includes('Side:'));
    if (side === undefined) throw new Error('no Side script');
    side.steps = [
      {
        text: 'Side looks twice.',
        tool_calls: [
          { name: 'fs.list', args: { path: 'sub' } },
          { name: 'fs.read', args: { path: 'sub/x.txt' } },
        ],
      },
      { text: 'never reached' },
      { text: 'Side done: listed.' },
    ];
    const { file } = await goldenFile(more);
    const golden = await replayGolden(file);
    expect(golden.toolsOf('0.2')).toEqual(['fs.list', 'fs.read']);
    expect(() => {
      assertGolden(golden);
    }).toThrow();
  });

  it('finds a changed tool set: a host tool offered now that the recorded run did not have', async () => {
    const { file } = await goldenFile();
    const extra = defineTool({
      name: 'extra.tool',
      description: 'A tool the recorded run was not offered',
      input: z.object({}),
      run: () => 'never called',
    });
    const golden = await replayGolden(file, { tools: [extra] });
    expect(golden.status).toBe('failed');
    expect(golden.divergences[0]).toMatchObject({ path: '0', call: 1, what: 'tools', live: false });
    expect(golden.divergences[0]?.replayed).toContain('only here: extra.tool');
    expect(() => {
      assertGolden(golden);
    }).toThrow();
  });
});
