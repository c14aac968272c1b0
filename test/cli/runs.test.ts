import { describe, expect, it } from 'vitest';
import { ArborProcess, killAt } from '../helpers/arbor-process.js';
import { resumeDir, runIdOf } from '../helpers/resume-run.js';
import { runArbor } from '../helpers/run-arbor.js';

type Dir = Awaited<ReturnType<typeof resumeDir>>;

const runs = (dir: Dir, args: string[]) =>
  runArbor(['runs', ...args, '--db', dir.db], { cwd: dir.dir });

// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller says what it reads
const json = <T>(text: string): T => JSON.parse(text) as T;

interface Summary {
  run_id: string;
  status: string;
  nodes: number;
  input_tokens: number;
  output_tokens: number;
}

describe('arbor runs, against real stores', () => {
  it('lists runs, shows a tree with its usage per node and subtree, and its answer', async () => {
    const dir = await resumeDir();
    const done = await dir.run('Coordinate the listing.');
    expect(done.code, done.stderr).toBe(0);
    const runId = runIdOf(done);

    const list = await runs(dir, ['list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(
      /^RUN +STATUS +STARTED +DURATION +NODES +TOKENS +COST +INSTRUCTION$/m,
    );
    expect(list.stdout).toContain(`${runId}  completed`);
    const listed = json<Summary[]>((await runs(dir, ['list', '--json'])).stdout);
    expect(listed[0]).toMatchObject({ run_id: runId, status: 'completed', nodes: 3 });
    expect(
      json<Summary[]>((await runs(dir, ['list', '--json', '--status', 'failed'])).stdout),
    ).toEqual([]);

    const show = await runs(dir, ['show', runId]);
    expect(show.stdout).toContain(`run ${runId}  completed`);
    expect(show.stdout).toMatch(/^ {4}0\.1\.1 \(n2\) +completed +process/m);
    expect(show.stdout).toContain('answer:\nRoot done: the tree of three answered.');
    const shown = json<{
      nodes: {
        path: string;
        usage: { input_tokens: number };
        subtree_usage: { input_tokens: number };
      }[];
      input_tokens: number;
      answer: string;
    }>((await runs(dir, ['show', runId, '--json'])).stdout);
    const [root, mid, leaf] = shown.nodes;
    expect(shown.nodes.map((n) => n.path)).toEqual(['0', '0.1', '0.1.1']);
    expect(root?.subtree_usage.input_tokens).toBe(
      (root?.usage.input_tokens ?? 0) +
        (mid?.usage.input_tokens ?? 0) +
        (leaf?.usage.input_tokens ?? 0),
    );
    expect(shown.input_tokens).toBe(root?.subtree_usage.input_tokens);
    expect(shown.answer).toBe('Root done: the tree of three answered.');
  });

  it('prints the events as NDJSON, a transcript, and the whole run as one JSON document', async () => {
    const dir = await resumeDir();
    const runId = runIdOf(await dir.run('Coordinate the listing.'));
    const events = (await runs(dir, ['events', runId])).stdout
      .trim()
      .split('\n')
      .map((line) => json<{ event: string; run_id: string; path?: string }>(line));
    expect(events.every((e) => e.run_id === runId)).toBe(true);
    expect(events.filter((e) => e.event === 'node.spawned').map((e) => e.path)).toEqual([
      '0',
      '0.1',
      '0.1.1',
    ]);

    const transcript = await runs(dir, ['transcript', runId, '0.1.1']);
    expect(transcript.stdout).toMatch(/^\[user\] Leaf: list the directory\.$/m);
    expect(transcript.stdout).toMatch(/^\[tool call \S+\] fs\.list \{"path":"\."\}$/m);
    expect(transcript.stdout).toMatch(/^\[tool result \S+\] fs\.list: /m);
    const byId = json<{ path: string }>(
      (await runs(dir, ['transcript', runId, 'n2', '--json'])).stdout,
    );
    expect(byId.path).toBe('0.1.1');
    const unknown = await runs(dir, ['transcript', runId, '9.9']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('has no node `9.9` (its paths: 0, 0.1, 0.1.1)');

    const exported = json<{
      run_id: string;
      nodes: unknown[];
      events: unknown[];
      transcripts: Record<string, unknown[]>;
      gates: unknown[];
    }>((await runs(dir, ['export', runId])).stdout);
    expect(exported.run_id).toBe(runId);
    expect(exported.nodes).toHaveLength(3);
    expect(exported.events.length).toBe(events.length);
    expect(Object.keys(exported.transcripts)).toEqual(['0', '0.1', '0.1.1']);
    expect(exported.transcripts['0.1.1']?.length).toBeGreaterThan(0);
  });

  it('shows an interrupted run as such, and follows a live run’s events to its end', async () => {
    const dir = await resumeDir();
    const killed = await dir.run('Coordinate the listing.', killAt('tool-result'));
    expect(killed.code).not.toBe(0);
    const runId = runIdOf(killed);
    const listed = json<Summary[]>((await runs(dir, ['list', '--json'])).stdout);
    expect(listed.find((run) => run.run_id === runId)?.status).toBe('interrupted');
    expect((await runs(dir, ['show', runId])).stdout).toContain(`run ${runId}  interrupted`);

    // A live run: `events --follow` prints as it goes and returns once the run has ended.
    const live = new ArborProcess(
      [
        'run',
        '--intel',
        dir.llm.url,
        '--model',
        'm',
        '--events',
        'ndjson',
        '--db',
        dir.db,
        'Coordinate the listing.',
      ],
      { cwd: dir.dir },
    );
    const spawned = await live.waitForEvent('node.spawned');
    const follow = await runs(dir, ['events', String(spawned.run_id), '--follow']);
    expect(follow.code).toBe(0);
    const last = follow.stdout.trim().split('\n').at(-1) ?? '';
    expect(json<{ event: string; path?: string }>(last)).toMatchObject({
      event: 'node.end',
      path: '0',
    });
    expect((await live.exited).code).toBe(0);
  });

  it('prunes runs older than a duration, and says what it would do with --dry-run', async () => {
    const dir = await resumeDir({ scripts: [{ steps: [{ text: 'Done.' }] }] });
    const first = runIdOf(await dir.run('One.'));
    const second = runIdOf(await dir.run('Two.'));
    const dry = await runs(dir, ['prune', '--older-than', '1ms', '--dry-run']);
    expect(dry.stdout).toBe(`would delete 2 run(s): ${first}, ${second}\n`);
    expect(json<Summary[]>((await runs(dir, ['list', '--json'])).stdout)).toHaveLength(2);
    const pruned = await runs(dir, ['prune', '--older-than', '1ms']);
    expect(pruned.stdout).toBe(`deleted 2 run(s): ${first}, ${second}\n`);
    expect((await runs(dir, ['list'])).stdout).toBe('no runs\n');
    expect((await runs(dir, ['show', first])).stderr).toContain(
      `No run \`${first}\` in this store`,
    );
    const missing = await runs(dir, ['prune']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('needs --older-than DURATION');
  });

  it('takes ages past the 24-day timer cap (`--older-than 30d`, `--since 90d`), not deadlines', async () => {
    const dir = await resumeDir({ scripts: [{ steps: [{ text: 'Done.' }] }] });
    const runId = runIdOf(await dir.run('One.'));
    const prune = await runs(dir, ['prune', '--older-than', '30d', '--dry-run']);
    expect(prune.stderr).toBe('');
    expect([prune.code, prune.stdout]).toEqual([0, 'would delete 0 run(s)\n']);
    const listed = await runs(dir, ['list', '--json', '--since', '90d']);
    expect(json<Summary[]>(listed.stdout).map((run) => run.run_id)).toEqual([runId]);
    const deadline = await dir.run('Two.', {}, ['--deadline', '30d']);
    expect(deadline.code).toBe(2);
    expect(deadline.stderr).toContain('Expected `--deadline` to be at most 24d, got `30d`.');
  });
});
