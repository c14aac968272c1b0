import { readFileSync } from 'node:fs';
import { hostname, uptime } from 'node:os';
import { z } from 'zod';

/**
 * Who holds a run: the host, its boot, the supervisor's process (with its start time, so a pid the
 * kernel gave to another process since is told apart) and when it took the run. With the lease it
 * renews, this is how any later arbor tells a run that is still going from one whose supervisor
 * died. Records written before `pid_start` existed have none; their pid is checked without it.
 */
export const RunOwnerSchema = z.object({
  host: z.string(),
  boot_id: z.string(),
  pid: z.number().int(),
  /** The process's start, in clock ticks since boot (`/proc/<pid>/stat` field 22), on Linux. */
  pid_start: z.number().int().nonnegative().optional(),
  started_at: z.number(),
});
export type RunOwner = z.infer<typeof RunOwnerSchema>;

/** How long a lease lasts unless renewed, and how often a live supervisor renews it. */
export const LEASE_MS = 20_000;
export const LEASE_RENEW_MS = 2_000;

let bootId: string | undefined;

/** This process as a run's owner. */
export function processOwner(now: number = Date.now()): RunOwner {
  bootId ??= readBootId();
  const start = processStat(process.pid)?.start;
  return {
    host: hostname(),
    boot_id: bootId,
    pid: process.pid,
    ...(start === undefined ? {} : { pid_start: start }),
    started_at: now,
  };
}

/** The kernel's boot id where there is one; else the boot time to the minute. */
function readBootId(): string {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return `boot-${Math.round((Date.now() / 1000 - uptime()) / 60)}`;
  }
}

/** A process's state letter and start time, as Linux's `/proc/<pid>/stat` says them. */
export interface ProcessStat {
  /** `R`, `S`, `D`, `Z` (a zombie: dead, not yet reaped by its parent)… */
  state: string;
  /** Clock ticks since boot. */
  start: number;
}

/**
 * `/proc/<pid>/stat` read: `undefined` where there is no such file (no process, or no `/proc`).
 * The command name (field 2) may hold spaces and parentheses, so fields are counted after the
 * last `)`: state is field 3, start time field 22.
 */
export function processStat(pid: number): ProcessStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  const start = Number(fields[19]);
  if (state === undefined || !Number.isSafeInteger(start)) return undefined;
  return { state, start };
}

/**
 * Whether a process of this host is alive (it exists, whoever owns it). A zombie is dead: it has
 * exited, only its parent has not reaped it yet. With `start` (the owner's recorded start time), a
 * process under the same pid that started at another time is another process: the pid was reused.
 * Without `/proc` (not Linux), or for an owner recorded without a start time, only the pid is
 * checked.
 */
export function processAlive(pid: number, start?: number): boolean {
  const stat = processStat(pid);
  if (stat !== undefined) {
    if (stat.state === 'Z') return false;
    if (start !== undefined && stat.start !== start) return false;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether `owner` is this very process (same pid and, where both were recorded, same start). */
function isMe(owner: RunOwner, me: RunOwner): boolean {
  return (
    owner.pid === me.pid &&
    (owner.pid_start === undefined ||
      me.pid_start === undefined ||
      owner.pid_start === me.pid_start)
  );
}

/**
 * Why a run marked `running` has no live supervisor, or `undefined` when it may still have one:
 * its lease expired, or its owner was on this host and its process (or the boot it ran in) is gone.
 */
export function whyAbandoned(
  owner: RunOwner | undefined,
  leaseUntil: number | undefined,
  me: RunOwner,
  now: number,
  alive: (pid: number, start?: number) => boolean = processAlive,
): string | undefined {
  if (owner === undefined) return 'the run records no owner';
  if (owner.host === me.host) {
    if (owner.boot_id !== me.boot_id) return `host ${owner.host} has rebooted since`;
    if (isMe(owner, me)) return undefined;
    if (owner.pid === me.pid || !alive(owner.pid, owner.pid_start))
      return `its supervisor (pid ${owner.pid}) is gone`;
  }
  if (leaseUntil === undefined || leaseUntil <= now)
    return `its lease expired at ${new Date(leaseUntil ?? 0).toISOString()}`;
  return undefined;
}
