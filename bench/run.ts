import { cpus } from 'node:os';
import { benchCaching } from './caching.js';
import { benchCodec } from './codec.js';
import { benchConcurrency } from './concurrency.js';
import { benchDeadlineOvershoot } from './deadline-overshoot.js';
import { benchDelegation } from './delegation.js';
import { benchDetector } from './detector.js';
import { benchEgress } from './egress.js';
import { benchFleet } from './fleet.js';
import { benchIntel } from './intel.js';
import { benchParked } from './parked.js';
import { benchPlanSchedule } from './plan-schedule.js';
import { benchReplay } from './replay.js';
import { benchSandbox } from './sandbox.js';
import { benchServe } from './serve.js';
import { benchSpawn } from './spawn.js';
import { benchSupervisorThroughput } from './supervisor-throughput.js';
import { benchTracing } from './tracing.js';
import type { BenchResult } from './stats.js';

/**
 * Runs the benchmarks named on the command line (all when none are named) and prints a table per
 * benchmark; `--json` prints the results as JSON instead. Not part of `npm test`: timing belongs
 * here, never in assertions.
 */
const BENCHMARKS: Record<string, () => BenchResult | Promise<BenchResult>> = {
  caching: benchCaching,
  codec: benchCodec,
  concurrency: benchConcurrency,
  'deadline-overshoot': benchDeadlineOvershoot,
  delegation: benchDelegation,
  detector: benchDetector,
  egress: benchEgress,
  fleet: benchFleet,
  intel: benchIntel,
  parked: benchParked,
  'plan-schedule': benchPlanSchedule,
  replay: benchReplay,
  sandbox: benchSandbox,
  serve: benchServe,
  spawn: benchSpawn,
  'supervisor-throughput': benchSupervisorThroughput,
  tracing: benchTracing,
};

const args = process.argv.slice(2);
const json = args.includes('--json');
const names = args.filter((arg) => !arg.startsWith('--'));
const unknown = names.filter((name) => !Object.hasOwn(BENCHMARKS, name));
if (unknown.length > 0) {
  console.error(
    `unknown benchmark(s): ${unknown.join(', ')}; known: ${Object.keys(BENCHMARKS).join(', ')}`,
  );
  process.exit(2);
}

const results: BenchResult[] = [];
for (const name of names.length > 0 ? names : Object.keys(BENCHMARKS)) {
  results.push(await BENCHMARKS[name]!());
}

const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}`;
if (json) {
  console.log(JSON.stringify({ machine, results }, null, 2));
} else {
  console.log(`machine: ${machine}`);
  for (const result of results) {
    console.log(`\n## ${result.name}\n`);
    for (const [key, value] of Object.entries(result.metrics)) console.log(`| ${key} | ${value} |`);
  }
}
