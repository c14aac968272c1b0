import { readFileSync } from 'node:fs';
import { hostname, uptime } from 'node:os';
import { z } from 'zod';

/**
 * Who holds a run: the host, its boot, the supervisor's process and when it took the run. With
 * the lease it renews, this is how any later arbor tells a run that is still going from one whose
 * supervisor died.
 */
export const RunOwnerSchema = z.object({
  host: z.string(),
  boot_id: z.string(),
  pid: z.number().int(),
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
  return { host: hostname(), boot_id: bootId, pid: process.pid, started_at: now };
}

/** The kernel's boot id where there is one; else the boot time to the minute. */
function readBootId(): string {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return `boot-${Math.round((Date.now() / 1000 - uptime()) / 60)}`;
  }
}

/** Whether a process of this host is alive (it exists, whoever owns it). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
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
  alive: (pid: number) => boolean = processAlive,
): string | undefined {
  if (owner === undefined) return 'the run records no owner';
  if (owner.host === me.host) {
    if (owner.boot_id !== me.boot_id) return `host ${owner.host} has rebooted since`;
    if (owner.pid === me.pid) return undefined;
    if (!alive(owner.pid)) return `its supervisor (pid ${owner.pid}) is gone`;
  }
  if (leaseUntil === undefined || leaseUntil <= now)
    return `its lease expired at ${new Date(leaseUntil ?? 0).toISOString()}`;
  return undefined;
}
