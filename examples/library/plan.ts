/**
 * A plan run from code: the example plan shipped with the package (copied to a scratch directory,
 * where its run-log is written), its leaves reported as they end, the final leaf's result printed.
 */
import { copyFileSync, mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Arbor } from 'arbor';
import { loadPlaybook, startFakeLlm } from 'arbor/testing';

const root = path.dirname(createRequire(import.meta.url).resolve('arbor/package.json'));
const dir = mkdtempSync(path.join(tmpdir(), 'arbor-plan-'));
const plan = path.join(dir, 'release-notes.toml');
copyFileSync(path.join(root, 'examples/plans/release-notes.toml'), plan);

const llm = await startFakeLlm({
  playbook: await loadPlaybook(path.join(root, 'examples/playbooks/release-notes.json')),
});
const arbor = await Arbor.open({
  intelligence: { endpoints: [llm.url], model: 'scripted' },
  store: path.join(dir, 'arbor.db'),
  cwd: dir,
});
try {
  const run = arbor.runPlan(plan, { concurrency: 2 });
  for await (const event of run.events) {
    if (event.type === 'node.end') console.error(`${event.path} ${event.status}`);
  }
  const result = await run.result;
  console.log(result.text);
  console.error(`${result.status}; run-log ${path.join(dir, 'release-notes.run.toml')}`);
  process.exitCode = result.exitCode;
} finally {
  await arbor.close();
  await llm.close();
}
