import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { ARBOR_BIN } from '../helpers/run-arbor.js';

const DEMO = new URL('../../examples/playbooks/demo.json', import.meta.url).pathname;
const ANNOUNCE = /^arbor mock-llm listening on (http:\/\/127\.0\.0\.1:(\d+))\n$/;

interface Running {
  child: ChildProcessWithoutNullStreams;
  /** The first stdout line, once it has arrived. */
  announced: Promise<string>;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<[number | null, NodeJS.Signals | null]>;
}

const running: Running[] = [];
afterEach(() => {
  for (const run of running.splice(0)) run.child.kill('SIGKILL');
});

function startMockLlm(args: string[]): Running {
  const child = spawn(process.execPath, [ARBOR_BIN, 'mock-llm', ...args], { stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const announced = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('\n')) resolve(stdout);
    });
    child.once('exit', () => {
      reject(new Error(`mock-llm exited before announcing: ${stderr}`));
    });
  });
  const exit = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const run = { child, announced, stdout: () => stdout, stderr: () => stderr, exit };
  running.push(run);
  return run;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
  return typeof address === 'object' && address !== null ? address.port : 0;
}

/**
 * Runs the command in-process against in-memory streams: the failure paths exit before serving,
 * so they need no process of their own (the spawned tests above cover the real binary).
 */
async function runInProcess(args: string[]) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const text = (stream: PassThrough) => (): string =>
    (stream.read() as Buffer | null)?.toString() ?? '';
  const code = await runCli(['mock-llm', ...args], {
    stdin: new PassThrough(),
    stdout,
    stderr,
    isStderrTty: false,
    env: {},
  });
  return { code, stdout: text(stdout)(), stderr: text(stderr)() };
}

async function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'arbor-mock-llm-'));
}

describe('arbor mock-llm', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    'announces itself, writes the address file, answers, and exits 0 on %s',
    async (signal) => {
      const dir = await tempDir();
      const addrFile = join(dir, 'addr');
      const run = startMockLlm(['--playbook', DEMO, '--addr-file', addrFile]);
      const line = await run.announced;
      const [, origin] = ANNOUNCE.exec(line) ?? [];
      expect(origin).toBeDefined();
      expect(await readFile(addrFile, 'utf8')).toBe(origin);
      expect(await readdir(dir)).toEqual(['addr']);

      const reply = await fetch(`${origin}/v1/chat/completions`, {
        method: 'POST',
        body: JSON.stringify({ model: 'demo', messages: [{ role: 'user', content: 'hi' }] }),
      });
      const body = (await reply.json()) as {
        choices: { message: { content: string; tool_calls: { function: { name: string } }[] } }[];
      };
      // A request no sub-agent script matches gets the root's first step: two delegations.
      expect(body.choices[0]?.message.content).toBe(
        'I will delegate: one sub-agent greets, another looks around, both at once.',
      );
      expect(body.choices[0]?.message.tool_calls.map((call) => call.function.name)).toEqual([
        'subagent_run',
        'subagent_run',
      ]);

      run.child.kill(signal);
      expect(await run.exit).toEqual([0, null]);
      expect(run.stdout()).toBe(line);
      expect(run.stderr()).toContain(
        'arbor mock-llm: POST /v1/chat/completions -> script "root" step 0 200',
      );
    },
  );

  it('listens on the port it is given', async () => {
    const port = await freePort();
    const run = startMockLlm(['--playbook', DEMO, '--port', String(port)]);
    expect(await run.announced).toBe(`arbor mock-llm listening on http://127.0.0.1:${port}\n`);
    run.child.kill('SIGTERM');
    expect((await run.exit)[0]).toBe(0);
  });

  it('prints its help and exits 0', async () => {
    const run = await runInProcess(['--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Usage: arbor mock-llm --playbook FILE');
  });

  it.each<[string, string[], string]>([
    ['no playbook', [], 'mock-llm: `--playbook FILE` is required.'],
    [
      'a bad port',
      ['--playbook', DEMO, '--port', '70000'],
      'Expected `--port` to be an integer from 0 to 65535, got `70000`.',
    ],
    ['a non-numeric port', ['--playbook', DEMO, '--port', 'http'], 'got `http`'],
    ['an unknown flag', ['--playbook', DEMO, '--verbose'], "Unknown option '--verbose'"],
    [
      'a missing playbook file',
      ['--playbook', '/nonexistent/p.json'],
      'Cannot read playbook `/nonexistent/p.json`: no such file.',
    ],
  ])('exits 2 on %s, naming what was wrong', async (_name, args, message) => {
    const run = await runInProcess(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(run.stdout).toBe('');
  });

  it('exits 2 on an invalid playbook, naming the bad field', async () => {
    const dir = await tempDir();
    const file = join(dir, 'bad.json');
    await writeFile(file, JSON.stringify({ scripts: [{ steps: [{ fault: { status: 200 } }] }] }));
    const run = await runInProcess(['--playbook', file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      '`scripts[0].steps[0].fault.status`: expected number >= 400, got 200',
    );
  });

  it('exits 2 when the port is taken', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const address = blocker.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    try {
      const run = await runInProcess(['--playbook', DEMO, '--port', String(port)]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`Cannot listen on 127.0.0.1:${port}: the address is in use.`);
    } finally {
      await new Promise<void>((resolve) =>
        blocker.close(() => {
          resolve();
        }),
      );
    }
  });

  it('exits 2 when the address file cannot be written', async () => {
    const run = await runInProcess(['--playbook', DEMO, '--addr-file', '/nonexistent/dir/addr']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Cannot write the address file `/nonexistent/dir/addr`: ENOENT.');
    expect(run.stdout).toBe('');
  });
});
