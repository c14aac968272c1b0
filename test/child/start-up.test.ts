import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { describe, expect, it, vi } from 'vitest';
import {
  CHILD_POOLED_ENV,
  CHILD_WAITING_MSG,
  childV8Flags,
  rehearseSpawn,
  setChildV8FlagsAtFirstFetch,
  warmHttp,
} from '../../src/child/index.js';
import { childCommand, ChildPool, type ChildCommand } from '../../src/supervisor/index.js';
import { entryCommand } from '../helpers/child-entries.js';

/** TCP servers and connections this process holds open. */
function openTcpHandles(): string[] {
  return process.getActiveResourcesInfo().filter((kind) => kind.startsWith('TCP'));
}

/** Starts the built child as a pool or a cold start would, and returns its `child.waiting` line. */
async function waitingLine(
  env: NodeJS.ProcessEnv,
  entry: ChildCommand = childCommand({}),
): Promise<Record<string, unknown>> {
  const { command, args } = entry;
  const child = spawn(command, args, { env, stdio: ['pipe', 'ignore', 'pipe'] });
  try {
    for await (const line of createInterface({ input: child.stderr })) {
      if (line.includes(CHILD_WAITING_MSG)) return JSON.parse(line) as Record<string, unknown>;
    }
    throw new Error('the child exited without announcing that it was waiting');
  } finally {
    child.stdin.end();
    child.kill('SIGKILL');
  }
}

describe('warming the model client’s HTTP transport ahead of a pooled child’s first model call', () => {
  it('makes one real request over loopback and leaves no server or connection open', async () => {
    const before = openTcpHandles();
    await expect(warmHttp()).resolves.toBe(true);
    // Handles finish closing a turn or two of the event loop after `close`.
    await vi.waitFor(() => {
      expect(openTcpHandles()).toEqual(before);
    });
  });

  it('is done by a child started for a pool, and not by a cold child', async () => {
    const path = process.env.PATH ?? '';
    await expect(waitingLine({ PATH: path, [CHILD_POOLED_ENV]: '1' })).resolves.toMatchObject({
      msg: CHILD_WAITING_MSG,
      http_warm: true,
      rehearsed: true,
    });
    await expect(waitingLine({ PATH: path })).resolves.toMatchObject({
      msg: CHILD_WAITING_MSG,
      http_warm: false,
      rehearsed: false,
    });
  });

  it.runIf(process.platform === 'linux')('is asked for by the pool of idle children', async () => {
    const pool = new ChildPool({
      command: childCommand({}),
      env: { PATH: process.env.PATH },
      size: 1,
    });
    try {
      await pool.whenFull();
      const child = pool.take();
      expect(child?.pid).toBeDefined();
      const environ = readFileSync(`/proc/${String(child?.pid)}/environ`, 'utf8').split('\0');
      expect(environ).toContain(`${CHILD_POOLED_ENV}=1`);
      child?.signalGroup('SIGKILL');
      await child?.exited;
    } finally {
      pool.close();
    }
  });
});

describe('rehearsing a pooled child’s path to `ready`', () => {
  it('reaches `ready` in memory, writing nothing to the process’s streams and leaving nothing open', async () => {
    const before = process.getActiveResourcesInfo().sort();
    const stdout = vi.spyOn(process.stdout, 'write');
    const stderr = vi.spyOn(process.stderr, 'write');
    try {
      await expect(rehearseSpawn()).resolves.toBe(true);
      expect(stdout).not.toHaveBeenCalled();
      expect(stderr).not.toHaveBeenCalled();
    } finally {
      stdout.mockRestore();
      stderr.mockRestore();
    }
    await vi.waitFor(() => {
      expect(process.getActiveResourcesInfo().sort()).toEqual(before);
    });
  });
});

describe('a child’s V8 flags', () => {
  it('are set by the child itself: Liftoff-only WebAssembly where V8 has Liftoff', async () => {
    const liftoff = process.arch === 'x64' || process.arch === 'arm64';
    await expect(waitingLine({ PATH: process.env.PATH ?? '' })).resolves.toMatchObject({
      v8_flags: liftoff ? ['--liftoff-only'] : [],
    });
    expect(childV8Flags('x64')).toEqual(['--liftoff-only']);
    expect(childV8Flags('ia32')).toEqual([]);
  });

  it('are set at the first fetch, once Node has loaded its HTTP client and before it connects', async () => {
    const order: string[] = [];
    const original = vi.fn((url: string) => {
      order.push(`fetch ${url}`);
      return Promise.resolve(new Response('{}'));
    });
    const target = { fetch: original as unknown as typeof fetch };
    const setFlag = (flag: string): void => {
      order.push(`flag ${flag}`);
    };
    expect(setChildV8FlagsAtFirstFetch(['--liftoff-only'], target, setFlag)).toEqual([
      '--liftoff-only',
    ]);
    expect(order).toEqual([]);
    expect(target.fetch).not.toBe(original);

    await expect(target.fetch('http://model.test/v1', { method: 'POST' })).resolves.toBeInstanceOf(
      Response,
    );
    expect(original).toHaveBeenCalledWith('http://model.test/v1', { method: 'POST' });
    expect(order).toEqual(['fetch http://model.test/v1', 'flag --liftoff-only']);
    // Put back at once: later requests go straight to the original, and no flag is set twice.
    expect(target.fetch).toBe(original);
    await target.fetch('http://model.test/v1');
    expect(order).toHaveLength(3);
  });

  it('are set even when the first fetch throws, and not armed where there are none', () => {
    const flags: string[] = [];
    const target = {
      fetch: (() => {
        throw new TypeError('bad init');
      }) as unknown as typeof fetch,
    };
    setChildV8FlagsAtFirstFetch(['--liftoff-only'], target, (flag) => flags.push(flag));
    expect(() => target.fetch('http://model.test/v1')).toThrow('bad init');
    expect(flags).toEqual(['--liftoff-only']);

    const untouched = { fetch: globalThis.fetch };
    expect(setChildV8FlagsAtFirstFetch([], untouched, () => flags.push('never'))).toEqual([]);
    expect(untouched.fetch).toBe(globalThis.fetch);
  });
});

describe('a child started from its start-up snapshot', () => {
  it('says so, sets its own V8 flags, and loads the HTTP client only for a pool', async () => {
    const snapshot = await entryCommand('snapshot');
    expect(snapshot.args[0]).toBe('--snapshot-blob');
    const path = process.env.PATH ?? '';
    const liftoff = process.arch === 'x64' || process.arch === 'arm64';
    await expect(waitingLine({ PATH: path }, snapshot)).resolves.toMatchObject({
      entry: 'snapshot',
      http_warm: false,
      rehearsed: false,
      v8_flags: liftoff ? ['--liftoff-only'] : [],
    });
    await expect(
      waitingLine({ PATH: path, [CHILD_POOLED_ENV]: '1' }, snapshot),
    ).resolves.toMatchObject({ entry: 'snapshot', http_warm: true, rehearsed: true });
    await expect(waitingLine({ PATH: path })).resolves.toMatchObject({ entry: 'bundle' });
  }, 120_000);
});
