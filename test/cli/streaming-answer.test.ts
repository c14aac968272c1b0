import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { fakeLlm, steps } from '../helpers/fake-llm.js';

const SAVE = '\u001b[s';
const RESTORE = '\u001b[u\u001b[J';
const FIRST = 'Let me look around first.';
const FINAL = 'The final answer, streamed as it was written.';

/** `arbor run` in this process, with stdout and stderr as terminals or not. */
async function run(tty: { stdout: boolean; stderr: boolean }, extra: string[] = []) {
  const server = await fakeLlm(
    steps({ text: FIRST, tool_calls: [{ name: 'fs.list', args: { path: '.' } }] }, { text: FINAL }),
  );
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: string[] = [];
  const err: string[] = [];
  stdout.on('data', (chunk: Buffer) => out.push(chunk.toString()));
  stderr.on('data', (chunk: Buffer) => err.push(chunk.toString()));
  const db = join(mkdtempSync(join(tmpdir(), 'arbor-stream-')), 'a.db');
  const code = await runCli(
    ['run', '--intel', server.url, '--model', 'm', '--db', db, '--sandbox', 'off', ...extra, 'Go.'],
    {
      stdin: new PassThrough(),
      stdout,
      stderr,
      isStderrTty: tty.stderr,
      isStdoutTty: tty.stdout,
      env: {},
    },
  );
  return { code, stdout: out.join(''), stderr: err.join('') };
}

describe('the answer on a terminal', () => {
  it('streams to a terminal stdout, each step replacing the last, then is printed whole', async () => {
    const { code, stdout, stderr } = await run({ stdout: true, stderr: false });
    expect(code).toBe(0);
    // Each step's text is written in place, cleared when the next step starts, and the answer
    // is printed whole at the end as it is without a terminal.
    expect(stdout.startsWith(`${SAVE}${FIRST.slice(0, 5)}`)).toBe(true);
    const segments = stdout.split(RESTORE);
    expect(segments.map((s) => s.replace(SAVE, ''))).toEqual([FIRST, FINAL, `${FINAL}\n`]);
    // stderr is not a terminal: NDJSON, with the deltas in it.
    expect(stderr).toContain('"event":"text.delta"');
  });

  it('shares the screen with the live tree: the last frame is the tree, the answer printed whole after it', async () => {
    const { code, stdout, stderr } = await run({ stdout: true, stderr: true });
    expect(code).toBe(0);
    expect(stdout).toBe(`${FINAL}\n`);
    const frames = stderr.split('\u001b[J');
    // (How the answer is drawn under the tree is in live-tree.test.ts; timing decides which frames show it.)
    // The last frame is the tree alone: the answer is on stdout, not left in the tree.
    expect(frames.at(-1)).toContain('total · 1 node');
    expect(frames.at(-1)).not.toContain(FINAL);
  });

  it('prints the answer whole, without control sequences, when stdout is not a terminal', async () => {
    const { stdout } = await run({ stdout: false, stderr: true });
    expect(stdout).toBe(`${FINAL}\n`);
  });

  it('--events chooses what goes to stderr', async () => {
    const none = await run({ stdout: false, stderr: false }, ['--events', 'none']);
    expect(none.code).toBe(0);
    expect(none.stderr).not.toContain('{');
    const tree = await run({ stdout: false, stderr: false }, ['--events', 'tree']);
    expect(tree.stderr).toContain('total · 1 node');
    expect(tree.stderr).not.toContain('"event"');
    const bad = await run({ stdout: false, stderr: false }, ['--events', 'json']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      'Expected `--events` to be `tree`, `ndjson` or `none`, got `json`.',
    );
  });
});
