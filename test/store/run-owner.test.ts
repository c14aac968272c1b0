import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqlDatabase, SqliteStore } from '../../src/store/index.js';
import {
  processAlive,
  processOwner,
  processStat,
  whyAbandoned,
  type RunOwner,
} from '../../src/store/run-owner.js';

const hasProc = existsSync('/proc/self/stat');
const parents: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const parent of parents.splice(0)) parent.kill('SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * A zombie: `sh` starts a short `sleep` in the background, prints its pid, then becomes a long
 * `sleep`, which never waits for it: once the short one exits (well after the exec, so `sh` has no
 * chance to reap it) it stays unreaped until the parent is killed.
 */
async function zombie(): Promise<number> {
  const parent = spawn('sh', ['-c', 'sleep 1 & echo $!; exec sleep 30'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  parents.push(parent);
  const [chunk] = (await once(parent.stdout, 'data')) as [Buffer];
  const pid = Number(chunk.toString().trim());
  for (;;) {
    const state = processStat(pid)?.state;
    if (state === 'Z') return pid;
    if (state === undefined) throw new Error(`pid ${pid} was reaped before it was seen a zombie`);
    await delay(20);
  }
}

describe.runIf(hasProc)('processAlive on Linux', () => {
  it('counts a zombie (exited, not yet reaped) as dead, though kill(pid, 0) still finds it', async () => {
    const pid = await zombie();
    expect(() => process.kill(pid, 0)).not.toThrow();
    expect(processAlive(pid)).toBe(false);
    expect(processAlive(pid, processStat(pid)?.start)).toBe(false);
  });

  it('counts a process under a reused pid (another start time) as dead', () => {
    const start = processStat(process.pid)?.start;
    expect(start).toBeGreaterThan(0);
    expect(processAlive(process.pid, start)).toBe(true);
    expect(processAlive(process.pid, (start ?? 0) + 1)).toBe(false);
    // An owner recorded before start times were: the pid alone.
    expect(processAlive(process.pid)).toBe(true);
  });

  it('reads the state and start after the last parenthesis, whatever the command name holds', async () => {
    // The command name is the executable's file name: a link to `sleep` named with both.
    const dir = mkdtempSync(join(tmpdir(), 'arbor-comm-'));
    dirs.push(dir);
    const odd = join(dir, 'a) b (c');
    symlinkSync(execFileSync('sh', ['-c', 'command -v sleep'], { encoding: 'utf8' }).trim(), odd);
    const child = spawn(odd, ['30'], { stdio: 'ignore' });
    parents.push(child);
    const pid = child.pid ?? 0;
    while (!commOf(pid).includes('(a) b (c)')) await delay(10);
    const stat = processStat(pid);
    expect(stat?.state).toMatch(/^[RSD]$/);
    expect(stat?.start).toBeGreaterThanOrEqual(processStat(process.pid)?.start ?? 0);
    expect(processAlive(pid, stat?.start)).toBe(true);
  });

  it('records this process start time in its owner record', () => {
    expect(processOwner().pid_start).toBe(processStat(process.pid)?.start);
  });
});

/** The raw `/proc/<pid>/stat`, or '' while it cannot be read. */
function commOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return '';
  }
}

describe('whyAbandoned with start times', () => {
  const me: RunOwner = { host: 'h', boot_id: 'b', pid: 10, pid_start: 500, started_at: 0 };

  it.each([
    ['this very process', { ...me }, undefined],
    ['this pid from an old record (no start time)', { ...me, pid_start: undefined }, undefined],
    [
      'this pid, started at another time (a restart in a container)',
      { ...me, pid_start: 400 },
      'its supervisor (pid 10) is gone',
    ],
  ])('%s', (_name, owner, expected) => {
    const { pid_start, ...rest } = owner;
    const record: RunOwner = pid_start === undefined ? rest : { ...rest, pid_start };
    expect(whyAbandoned(record, Date.now() + 60_000, me, Date.now(), () => true)).toBe(expected);
  });

  it('passes the recorded start time to the liveness check', () => {
    const seen: (number | undefined)[] = [];
    whyAbandoned(
      { ...me, pid: 11, pid_start: 77 },
      Date.now() + 60_000,
      me,
      Date.now(),
      (_pid, start) => {
        seen.push(start);
        return true;
      },
    );
    expect(seen).toEqual([77]);
  });
});

describe('taking an interrupted run up', () => {
  function interruptedRun(): string {
    const dir = mkdtempSync(join(tmpdir(), 'arbor-owner-'));
    dirs.push(dir);
    const db = join(dir, 'arbor.db');
    const first = new SqliteStore(db);
    first.createRun({
      id: 'r1',
      instruction: 'x',
      status: 'running',
      createdAt: Date.now(),
      meta: {},
    });
    const owner = first.owner;
    first.close();
    const sql = openSqlDatabase(db);
    sql
      .prepare('UPDATE runs SET owner = @owner WHERE id = @id')
      .run({ owner: JSON.stringify({ ...owner, pid: 2 ** 30 }), id: 'r1' });
    sql.close();
    return db;
  }

  it('lets exactly one of two arbors on one store take a run up', () => {
    const db = interruptedRun();
    const a = new SqliteStore(db);
    const b = new SqliteStore(db);
    expect(a.getRun('r1')?.status).toBe('interrupted');
    expect(a.reserveRun('r1')).toBe(true);
    expect(b.reserveRun('r1')).toBe(false);
    expect(b.takeOverRun('r1')).toBe(false);
    expect(a.takeOverRun('r1')).toBe(true);
    expect(b.getRun('r1')?.status).toBe('running');
    expect(b.runHold('r1')?.owner).toEqual(a.owner);
    // Another look finds the run held by a live process: nothing to reap.
    expect(b.reapInterrupted()).toEqual([]);
    a.close();
    b.close();
  });

  it('lets a reservation lapse with its lease', () => {
    const db = interruptedRun();
    const a = new SqliteStore(db);
    const b = new SqliteStore(db);
    const now = Date.now();
    expect(a.reserveRun('r1', now)).toBe(true);
    expect(b.takeOverRun('r1', now + 60_000)).toBe(true);
    a.close();
    b.close();
  });
});
