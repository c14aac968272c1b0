import { describe, expect, it } from 'vitest';
import { openSqlDatabase } from '../../src/store/index.js';
import { processOwner } from '../../src/store/run-owner.js';
import { killAt } from '../helpers/arbor-process.js';
import { fakeLlm } from '../helpers/fake-llm.js';
import { readRun, resumeDir, runIdOf, THREE_LEVELS, toolsOf } from '../helpers/resume-run.js';

describe('arbor resume', () => {
  it('refuses an unknown run, a run that ended and a run a live supervisor holds (exit 2)', async () => {
    const dir = await resumeDir({ scripts: [{ steps: [{ text: 'Done.' }] }] });
    const unknown = await dir.resume('run_nope');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('There is no run `run_nope` in the store.');
    expect(unknown.stderr).not.toContain('resuming run');

    const done = await dir.run('Say done.');
    expect(done.code, done.stderr).toBe(0);
    const runId = runIdOf(done);
    const ended = await dir.resume(runId);
    expect(ended.code).toBe(2);
    expect(ended.stderr).toContain(
      `Run \`${runId}\` already ended \`completed\`: only an interrupted run can be resumed.`,
    );
    expect(dir.llm.requests).toHaveLength(1);

    // This test's own process stands for a live supervisor on this host.
    const sql = openSqlDatabase(dir.db);
    sql
      .prepare("UPDATE runs SET status = 'running', owner = @owner, lease_until = @lease")
      .run({ owner: JSON.stringify(processOwner()), lease: Date.now() + 60_000 });
    sql.close();
    const held = await dir.resume(runId);
    expect(held.code).toBe(2);
    expect(held.stderr).toContain(
      `Run \`${runId}\` is still running under pid ${String(process.pid)}`,
    );
    expect(dir.llm.requests).toHaveLength(1);
  });

  it('records transcripts through the secret scrubber', async () => {
    const token = 'sk-live-abcdefghijklmnop';
    const dir = await resumeDir({
      scripts: [{ steps: [{ text: `The key is ${token}.` }] }],
    });
    const run = await dir.run('Tell me the key.');
    expect(run.code, run.stderr).toBe(0);
    const records = readRun(dir.db, runIdOf(run));
    const root = records.nodes[0];
    const stored = JSON.stringify(records.transcripts.get(root?.id ?? ''));
    expect(stored).toContain('Tell me the key.');
    expect(stored).toContain('The key is');
    expect(stored).not.toContain(token);
  });

  it('takes the recorded grant, narrowed by the grant flags given to resume', async () => {
    const dir = await resumeDir();
    const crashed = await dir.run('Run the listing.', killAt('model-call:1'));
    expect(crashed.signal).toBe('SIGKILL');
    const before = dir.llm.requests.length;
    expect(toolsOf(dir.llm.requests[0])).toContain('fs_list');

    const resumed = await dir.resume(runIdOf(crashed), ['--fs-read', 'none']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const after = dir.llm.requests.slice(before);
    expect(after.length).toBeGreaterThan(0);
    // fs.list needs fs_read, which resume narrowed away.
    for (const request of after) expect(toolsOf(request)).not.toContain('fs_list');
  });

  it('resumes with the endpoints and model the run recorded when none are given; flags override', async () => {
    const dir = await resumeDir();
    const crashed = await dir.run('Run the listing.', killAt('model-call:1'));
    expect(crashed.signal, crashed.stderr).toBe('SIGKILL');
    const runId = runIdOf(crashed);
    const recorded = readRun(dir.db, runId).run?.meta.intelligence;
    expect(recorded).toEqual({ model: 'm', endpoints: [{ url: dir.llm.url, dialect: 'openai' }] });

    const before = dir.llm.requests.length;
    const resumed = await dir.resumeRecorded(runId);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain('Root done');
    const after = dir.llm.requests.slice(before);
    expect(after.length).toBeGreaterThan(0);
    for (const request of after) expect((request.body as { model?: string }).model).toBe('m');

    // Given flags win over the record: another endpoint, another model.
    const again = await resumeDir();
    const killed = await again.run('Run the listing.', killAt('model-call:1'));
    const other = await fakeLlm(THREE_LEVELS);
    const before2 = again.llm.requests.length;
    const overridden = await again.resumeRecorded(runIdOf(killed), [
      '--intel',
      other.url,
      '--model',
      'other-model',
    ]);
    expect(overridden.code, overridden.stderr).toBe(0);
    expect(again.llm.requests.length).toBe(before2);
    expect(other.requests.length).toBeGreaterThan(0);
    expect((other.requests[0]?.body as { model?: string }).model).toBe('other-model');
  });

  it('ignores ARBOR_TEST_KILL_AT without ARBOR_TEST_MODE=chaos: a stray variable kills nothing', async () => {
    expect(process.env.ARBOR_TEST_MODE).toBeUndefined();
    const dir = await resumeDir({ scripts: [{ steps: [{ text: 'Done.' }] }] });
    const run = await dir.run('Say done.', { ARBOR_TEST_KILL_AT: 'model-call:1' });
    expect([run.signal, run.code], run.stderr).toEqual([null, 0]);
    expect(run.stdout).toContain('Done.');
    expect(readRun(dir.db, runIdOf(run)).run?.status).toBe('completed');
  });
});
