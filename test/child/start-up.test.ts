import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { describe, expect, it, vi } from 'vitest';
import {
  CHILD_POOLED_ENV,
  CHILD_WAITING_MSG,
  rehearseSpawn,
  setChildV8Flags,
  warmFetch,
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

describe('loading the HTTP client ahead of a pooled child’s first model call', () => {
  it('makes one real fetch over loopback and leaves no server or connection open', async () => {
    const before = openTcpHandles();
    await expect(warmFetch()).resolves.toBe(true);
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
    expect(setChildV8Flags('ia32')).toEqual([]);
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
