import { readFileSync } from 'node:fs';

/** A process's memory from `/proc/PID/smaps_rollup`, in MiB. */
export interface ProcessMemory {
  /** Resident: every page the process maps, shared or not. */
  rss: number;
  /** Proportional: shared pages divided among the processes that map them. */
  pss: number;
  /** Pages only this process maps (its heap, mostly): what one more child really costs. */
  private: number;
  /** Pages shared with other processes (the Node binary, libraries). */
  shared: number;
}

export function processMemory(pid: number): ProcessMemory {
  const text = readFileSync(`/proc/${String(pid)}/smaps_rollup`, 'utf8');
  const kib = (field: string): number =>
    Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 'NaN');
  const mib = (value: number): number => value / 1024;
  return {
    rss: mib(kib('Rss')),
    pss: mib(kib('Pss')),
    private: mib(kib('Private_Clean') + kib('Private_Dirty')),
    shared: mib(kib('Shared_Clean') + kib('Shared_Dirty')),
  };
}

/** The mean of each field over several processes, to one decimal. */
export function meanMemory(samples: readonly ProcessMemory[]): ProcessMemory {
  const mean = (pick: (m: ProcessMemory) => number): number =>
    Number((samples.reduce((sum, m) => sum + pick(m), 0) / samples.length).toFixed(1));
  return {
    rss: mean((m) => m.rss),
    pss: mean((m) => m.pss),
    private: mean((m) => m.private),
    shared: mean((m) => m.shared),
  };
}

/** `MemAvailable` from `/proc/meminfo`, in MiB. */
export function memAvailableMiB(): number {
  const text = readFileSync('/proc/meminfo', 'utf8');
  return Number(/^MemAvailable:\s+(\d+)/m.exec(text)?.[1] ?? 'NaN') / 1024;
}
