import { totalmem } from 'node:os';
import { ChildPool, resolveChildCommand, type ChildCommand } from '../src/supervisor/index.js';
import { meanMemory, memAvailableMiB, processMemory } from './child-memory.js';
import type { BenchResult } from './stats.js';

/**
 * How many process children this machine holds: starts `TARGET` real children (from the start-up
 * snapshot, loaded, HTTP client warmed, waiting for a payload: a pool's idle children) and keeps
 * them all alive at once, then reads what each costs. A child's resident size counts the Node
 * binary's pages, which every child shares; what one more child really takes is its private
 * memory, which is also what the machine's available memory falls by. Stops early, and says so,
 * if available memory would drop below `RESERVE_MIB`.
 */
const TARGET = Number(process.env.ARBOR_BENCH_CHILDREN ?? 400);
const BATCH = 16;
const RESERVE_MIB = 2_048;

export async function benchConcurrency(): Promise<BenchResult> {
  const { command } = await resolveChildCommand(process.env);
  const before = memAvailableMiB();
  const pools: ChildPool[] = [];
  let held = 0;
  let stopped = 'no';
  try {
    while (held < TARGET) {
      if (memAvailableMiB() < RESERVE_MIB) {
        stopped = `yes: under ${String(RESERVE_MIB)} MiB available`;
        break;
      }
      const pool = batch(command, Math.min(BATCH, TARGET - held));
      pools.push(pool);
      await pool.whenFull();
      held += pool.available;
    }
    const after = memAvailableMiB();
    const children = pools.flatMap((pool) => drain(pool));
    const alive = children.filter((child) => !child.hasExited()).length;
    const memory = meanMemory(children.map((child) => processMemory(child.pid ?? 0)));
    const perChild = (before - after) / held;
    for (const child of children) child.signalGroup('SIGKILL');
    const total = totalmem() / 1024 / 1024;
    return {
      name: 'concurrency',
      metrics: {
        'children started': held,
        'children alive at once': alive,
        'stopped early': stopped,
        'available memory before / after MiB': `${before.toFixed(0)} / ${after.toFixed(0)}`,
        'memory per child, from available memory MiB': Number(perChild.toFixed(1)),
        'per child RSS / PSS / private / shared MiB': `${String(memory.rss)} / ${String(memory.pss)} / ${String(memory.private)} / ${String(memory.shared)}`,
        'machine memory MiB': Math.round(total),
        'children this machine holds (available before ÷ per child)': Math.floor(before / perChild),
      },
    };
  } finally {
    for (const pool of pools) pool.close();
  }
}

function batch(command: ChildCommand, size: number): ChildPool {
  return new ChildPool({ command, env: { PATH: process.env.PATH ?? '' }, size });
}

/** Takes every idle child and closes the pool in the same tick, so it starts no replacement. */
function drain(pool: ChildPool): NonNullable<ReturnType<ChildPool['take']>>[] {
  const out: NonNullable<ReturnType<ChildPool['take']>>[] = [];
  for (let child = pool.take(); child !== undefined; child = pool.take()) out.push(child);
  pool.close();
  return out;
}
