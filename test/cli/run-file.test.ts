import { writeFile } from 'node:fs/promises';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRunFile } from '../../src/protocol/load-run-file.js';
import { RUN_FILE_FORMAT } from '../../src/protocol/run-file.js';
import { ARBOR_VERSION } from '../../src/protocol/index.js';
import { listModelCalls, SqliteStore } from '../../src/store/index.js';
import { FAST_ENV } from '../helpers/arbor-process.js';
import { fakeLlm } from '../helpers/fake-llm.js';
import { THREE_LEVELS } from '../helpers/resume-run.js';
import { runArbor } from '../helpers/run-arbor.js';

/**
 * What a replay needs, recorded by a real run: the three-level tree of `resume-run.ts` (the root
 * delegates, the middle delegates and lists, the leaf lists) against the fake LLM, with sampling
 * set in the config. Then `arbor runs export` carries it all, and `loadRunFile` reads it back.
 */
async function recordedRun() {
  const dir = await mkdtemp(join(tmpdir(), 'arbor-run-file-'));
  const llm = await fakeLlm(THREE_LEVELS);
  const config = join(dir, 'arbor.toml');
  await writeFile(
    config,
    [
      '[intelligence]',
      'model = "m"',
      '[intelligence.sampling]',
      'temperature = 0.25',
      'seed = 7',
      '[[intelligence.endpoint]]',
      `url = "${llm.url}"`,
      '[intelligence.endpoint.sampling]',
      'max_output_tokens = 900',
      '',
    ].join('\n'),
  );
  const db = join(dir, 'arbor.db');
  const env = { ...FAST_ENV, ARBOR_DB: db };
  const run = await runArbor(
    ['run', '--config', config, '--fs-read', '.', '--json', 'Coordinate the listing.'],
    { cwd: dir, env },
  );
  expect(run.code, run.stderr).toBe(0);
  const runId = (JSON.parse(run.stdout) as { run_id: string }).run_id;
  const exported = await runArbor(['runs', 'export', runId], { cwd: dir, env });
  expect(exported.code, exported.stderr).toBe(0);
  return { db, runId, text: exported.stdout };
}

describe('per-call records and run files, from a real run', () => {
  it('records each call’s tools, sampling and model; export carries them; load reads them back', async () => {
    const { db, runId, text } = await recordedRun();
    const store = new SqliteStore(db);
    try {
      const nodes = store.listNodes(runId);
      const byPath = new Map(nodes.map((node) => [node.path, node]));
      const leaf = listModelCalls(store, runId, byPath.get('0.1.1')?.id ?? '');
      const root = listModelCalls(store, runId, byPath.get('0')?.id ?? '');
      const sampling = { temperature: 0.25, seed: 7, max_output_tokens: 900 };
      expect(
        leaf.map(({ call, step, model_asked, sampling: sent }) => [call, step, model_asked, sent]),
      ).toEqual([
        [1, 1, 'm', sampling],
        [2, 2, 'm', sampling],
      ]);
      // The leaf was offered the fs tools and `finish`, with their schemas; the root, delegation.
      const leafTools = leaf[0]?.tools?.map((tool) => tool.name) ?? [];
      expect(leafTools).toContain('fs.list');
      expect(leafTools).toContain('finish');
      expect(leaf[0]?.tools?.find((t) => t.name === 'fs.list')?.input_schema).toMatchObject({
        type: 'object',
        properties: { path: expect.any(Object) as unknown },
      });
      expect(root[0]?.tools?.map((tool) => tool.name)).toContain('subagent.run');
      // The same set on both steps: named by one digest, and its schemas reported once per node.
      expect(leaf[1]?.tools_digest).toBe(leaf[0]?.tools_digest);
      const toolsEvents = store
        .listEvents(runId)
        .filter((e) => e.kind === 'model.tools' && e.nodeId === byPath.get('0.1.1')?.id);
      expect(toolsEvents).toHaveLength(1);

      // Export → load: the same run, the same records, in the current format.
      const loaded = loadRunFile(text);
      expect(loaded.version).toBe(1);
      expect(loaded.notes).toEqual([]);
      expect(loaded.file).toEqual(JSON.parse(text));
      expect(`${JSON.stringify(loaded.file, null, 2)}\n`).toBe(text);
      expect(loaded.file.format).toBe(RUN_FILE_FORMAT);
      expect(loaded.file.arbor_version).toBe(ARBOR_VERSION);
      expect(Object.keys(loaded.file.model_calls)).toEqual(['0', '0.1', '0.1.1']);
      const fileLeaf = loaded.file.model_calls['0.1.1'] ?? [];
      expect(
        fileLeaf.map(({ tools_digest, ...call }) => ({
          ...call,
          tools: loaded.file.tools[tools_digest ?? ''],
        })),
      ).toEqual(leaf.map(({ tools_digest: _digest, ...call }) => call));
    } finally {
      store.close();
    }
  });
});
