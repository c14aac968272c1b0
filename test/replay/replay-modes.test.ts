import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fakeLlm } from '../helpers/fake-llm.js';
import { changePrompt, replayDir, replayIdOf, treePlaybook } from '../helpers/replay-fixtures.js';
import { FAST_ENV } from '../helpers/arbor-process.js';
import { readRun, resumeDir, runIdOf } from '../helpers/resume-run.js';
import { runArbor } from '../helpers/run-arbor.js';

describe('arbor replay: tools live, continuing live, warm sessions, in-process nodes', () => {
  it('--tools live runs the tools again under the recorded grant, but replays the recorded gate answer', async () => {
    const dir = await replayDir();
    const { runId, llm, stdout } = await dir.record();
    const calls = llm.requests.length;
    await rm(join(dir.dir, 'out.txt'));
    const replay = await dir.arbor(['replay', runId, '--tools', 'live', '--events', 'none']);
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toBe(stdout);
    expect(replay.stderr).toContain('no divergence');
    // The leaf's fs.write ran again; no model was called; nobody was asked.
    expect(existsSync(join(dir.dir, 'out.txt'))).toBe(true);
    expect(llm.requests.length).toBe(calls);
    const replayed = readRun(dir.db, replayIdOf(replay));
    expect(replayed.events.filter((e) => e.kind === 'gate.open')).toEqual([]);
  });

  it('a live tool result that differs from the record is a divergence at the next call', async () => {
    const dir = await replayDir();
    const { runId } = await dir.record();
    // out.txt is still there: the leaf's fs.write now replaces it, where the record created it.
    const replay = await dir.arbor(['replay', runId, '--tools', 'live', '--events', 'none']);
    expect(replay.code).toBe(1);
    expect(replay.stderr).toContain('diverged at node 0.1.1, model call 2 (tool_result), stopped');
    expect(replay.stderr).toMatch(/- \[tool result\] fs\.write: Created /);
    expect(replay.stderr).toMatch(/\+ \[tool result\] fs\.write: Replaced /);
  });

  it('--continue-live goes on live from a divergence: the changed node and those its answer reaches', async () => {
    const dir = await replayDir();
    const { runId, llm } = await dir.record();
    const calls = llm.requests.length;
    changePrompt(dir.db, runId, '0.2');
    const other = await fakeLlm(treePlaybook('Side, asked anew: listed.'));
    const replay = await dir.arbor([
      'replay',
      runId,
      '--continue-live',
      '--intel',
      other.url,
      '--model',
      'm',
      '--ask-fallback',
      'fail',
      '--events',
      'none',
    ]);
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stderr).toContain('diverged at node 0.2, model call 1 (system), going on live');
    expect(replay.stderr).toContain(
      'diverged at node 0, model call 2 (tool_result), going on live',
    );
    expect(llm.requests.length).toBe(calls);
    // Side's two calls and the root's last two went to the model given now; Mid and Leaf did not.
    const firsts = other.requests.map(
      (r) =>
        (r.body as { messages: { role: string; content: string }[] }).messages.find(
          (m) => m.role === 'user',
        )?.content,
    );
    expect(firsts).toEqual([
      'Side: list the directory.',
      'Side: list the directory.',
      'Run the tree.',
      'Run the tree.',
    ]);
    const replayed = readRun(dir.db, replayIdOf(replay));
    // After the divergence the root's gate was asked again (and, with no one to ask, failed).
    expect(replayed.events.filter((e) => e.kind === 'gate.open')).toHaveLength(1);
  });

  it('replays a warm session turn by turn, each message from the record', async () => {
    const dir = await resumeDir({
      scripts: [
        { match: { contains: 'second' }, steps: [{ text: 'A2: second answered.' }] },
        { steps: [{ text: 'A1: first answered.' }] },
      ],
    });
    const env = { ...FAST_ENV, ARBOR_DB: dir.db };
    const args = ['--intel', dir.llm.url, '--model', 'm', '--events', 'ndjson', '--warm'];
    const run = await runArbor(['run', ...args, 'Say first.'], {
      cwd: dir.dir,
      env,
      input: 'second\n',
    });
    expect(run.code, run.stderr).toBe(0);
    expect(dir.llm.requests).toHaveLength(2);

    const replay = await runArbor(['replay', runIdOf(run), '--events', 'none'], {
      cwd: dir.dir,
      env,
    });
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toBe('A1: first answered.\nA2: second answered.\n');
    expect(replay.stderr).toContain('no divergence');
    expect(dir.llm.requests).toHaveLength(2);
  });

  it('replays nodes in-process (the spawn provider) as it replays process children', async () => {
    const dir = await replayDir();
    const playbook = treePlaybook();
    const root = playbook.scripts.at(-1);
    const spawns = root?.steps[0]?.tool_calls as { args: Record<string, unknown> }[];
    for (const call of spawns) call.args.provider = 'spawn';
    const { runId, stdout } = await dir.record(playbook);
    expect(dir.read(runId).nodes.filter((n) => n.provider === 'spawn')).toHaveLength(2);
    const replay = await dir.arbor(['replay', runId, '--events', 'none']);
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toBe(stdout);
    expect(replay.stderr).toContain('no divergence');
  });
});

describe('arbor replay: the grant', () => {
  it('refuses to run the tools of a run recorded elsewhere live without a grant given now', async () => {
    const dir = await replayDir();
    const { runId } = await dir.record();
    const exported = await dir.arbor(['runs', 'export', runId]);
    const file = join(dir.dir, 'elsewhere.json');
    await writeFile(file, exported.stdout);
    const fresh = join(dir.dir, 'fresh.db');
    await rm(join(dir.dir, 'out.txt'));

    const refused = await dir.arbor(
      ['replay', file, '--tools', 'live', '--events', 'none'],
      dir.dir,
      {
        ARBOR_DB: fresh,
      },
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('was recorded on another machine');
    expect(existsSync(join(dir.dir, 'out.txt'))).toBe(false);

    const granted = await dir.arbor(
      [
        'replay',
        file,
        '--tools',
        'live',
        ...['--fs-read', '.', '--fs-write', '.'],
        '--events',
        'none',
      ].concat(
        // Run live from a file, the run holds only what is given now: every axis it used.
        ['--exec', 'all', '--net', 'all'],
      ),
      dir.dir,
      { ARBOR_DB: fresh },
    );
    expect(granted.code, granted.stderr).toBe(0);
    expect(existsSync(join(dir.dir, 'out.txt'))).toBe(true);
  });

  it('checks every recorded call against the grant held now: a narrower one is a divergence', async () => {
    const dir = await replayDir();
    const { runId } = await dir.record();
    await rm(join(dir.dir, 'out.txt'));
    // The run wrote out.txt under `--fs-write .`. Replayed with no write grant, the root is not
    // even offered fs.write: its tools differ from its first call on.
    const none = await dir.arbor(['replay', runId, '--fs-write', 'none', '--events', 'none']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('diverged at node 0, model call 1 (tools), stopped');
    expect(none.stderr).toContain('- only here: fs.write, fs.edit');
    // With writes granted under sub/ only, the leaf's recorded write to out.txt is refused now,
    // before any recorded result is served: its next call is sent the refusal, not the record.
    const sub = await dir.arbor(['replay', runId, '--fs-write', 'sub', '--events', 'none']);
    expect(sub.code).toBe(1);
    expect(sub.stderr).toContain('diverged at node 0.1.1, model call 2 (tool_result), stopped');
    expect(existsSync(join(dir.dir, 'out.txt'))).toBe(false);
  });
});

describe('arbor replay: older records', () => {
  it('replays a run recorded without per-call records, saying which checks it skipped and which arbor recorded it', async () => {
    const dir = await replayDir();
    const { runId, stdout } = await dir.record();
    const exported = JSON.parse((await dir.arbor(['runs', 'export', runId])).stdout) as {
      arbor_version: string;
      events: Record<string, unknown>[];
    };
    // As an older arbor wrote it: no digests on its model calls, another version.
    exported.arbor_version = '0.0.1';
    for (const event of exported.events) {
      delete event.system_digest;
      delete event.tools_digest;
    }
    const file = join(dir.dir, 'older.json');
    await writeFile(file, JSON.stringify(exported));
    await rm(join(dir.dir, 'out.txt'));
    const replay = await dir.arbor(['replay', file, '--events', 'none'], dir.dir, {
      ARBOR_DB: join(dir.dir, 'older.db'),
    });
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toBe(stdout);
    expect(replay.stderr).toMatch(/note: (\d+) of \1 recorded model calls have no system prompt/);
    expect(replay.stderr).toMatch(/note: (\d+) of \1 recorded model calls have no tools set/);
    expect(replay.stderr).toContain('note: recorded by arbor 0.0.1, replayed by arbor');
    expect(replay.stderr).toContain('no divergence');
  });
});

describe('arbor replay: a run file from elsewhere', () => {
  it('holds, run live, only the grant given now: an axis the file grants and the command line does not is nothing', async () => {
    const dir = await replayDir();
    const { runId } = await dir.record();
    const exported = JSON.parse((await dir.arbor(['runs', 'export', runId])).stdout) as {
      authority: Record<string, { grant: Record<string, unknown> }>;
    };
    // The file claims every node may write anywhere and run any command.
    for (const held of Object.values(exported.authority))
      Object.assign(held.grant, { fs_write: 'all', exec: 'all', net: 'all' });
    const file = join(dir.dir, 'claims.json');
    await writeFile(file, JSON.stringify(exported));
    await rm(join(dir.dir, 'out.txt'));
    const replay = await dir.arbor(
      ['replay', file, '--tools', 'live', '--fs-read', '.', '--events', 'none'],
      dir.dir,
      { ARBOR_DB: join(dir.dir, 'claims.db') },
    );
    // Given only --fs-read, no node is offered fs.write: the file's claim is not a grant.
    expect(replay.code).toBe(1);
    expect(replay.stderr).toContain('diverged at node 0, model call 1 (tools), stopped');
    expect(replay.stderr).toContain('- only here: fs.write, fs.edit');
    expect(existsSync(join(dir.dir, 'out.txt'))).toBe(false);
  });
});
