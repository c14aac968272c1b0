import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FleetIdentity } from '../src/fleet/fleet-identity.js';
import { writePrivateKeyFile } from '../src/fleet/key-file.js';

/** The built CLI (`npm run build` first). */
const ARBOR_BIN = fileURLToPath(new URL('../../dist/bundle/arbor.mjs', import.meta.url));

const keyDir = mkdtempSync(join(tmpdir(), 'arbor-bench-keys-'));

/** A key pair for the benchmark's fleet, its private key in a file of mode 0600. */
function benchIdentity(name: string): { identity: FleetIdentity; file: string } {
  const { identity, pem } = FleetIdentity.generate();
  const file = join(keyDir, `${name}.key`);
  writePrivateKeyFile(file, pem);
  return { identity, file };
}

/** The benchmark's supervisor's key pair. */
export const BENCH_SUPERVISOR = benchIdentity('supervisor');
/** Its workers' key pairs, one each, dealt in turn by `startWorker`. */
export const BENCH_WORKERS = Array.from({ length: 8 }, (_, i) => benchIdentity(`w${i + 1}`));
let dealt = 0;

/** A config file admitting every one of the benchmark's workers. */
export const BENCH_ADMIT_CONFIG = join(keyDir, 'admit.toml');
writeFileSync(
  BENCH_ADMIT_CONFIG,
  BENCH_WORKERS.map(
    ({ identity }, i) =>
      `[[queue.admit]]\nname = "w${i + 1}"\npublic_key = "${identity.publicKey.text}"\n`,
  ).join(''),
);

/** Clock ticks per second of `/proc/PID/stat`'s CPU times. */
const TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

export function hasRedisServer(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (typeof address === 'object' && address !== null) resolve(address.port);
        else reject(new Error('no port'));
      });
    });
  });
}

/** Resolves once `child` has written `text` on stdout or stderr. */
function written(child: ChildProcess, text: string, what: string): Promise<void> {
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      if (output.includes(text)) resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      reject(new Error(`${what} exited (${String(code)}) before it was ready:\n${output}`));
    });
  });
}

/** A `redis-server` on a free loopback port, without persistence. */
export async function startRedis(): Promise<{ url: string; pid: number; stop(): void }> {
  const port = await freePort();
  const server = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  await written(server, 'Ready to accept connections', 'redis-server');
  return {
    url: `redis://127.0.0.1:${port}`,
    pid: server.pid ?? 0,
    stop: () => server.kill('SIGKILL'),
  };
}

/** An `arbor worker` process in a directory of its own. */
export interface BenchWorker {
  pid: number;
  stop(): Promise<void>;
}

export async function startWorker(
  url: string,
  options: { concurrency: number; pool: number },
): Promise<BenchWorker> {
  const dir = mkdtempSync(join(tmpdir(), 'arbor-bench-worker-'));
  const key = BENCH_WORKERS[dealt++ % BENCH_WORKERS.length] ?? BENCH_SUPERVISOR;
  const worker = spawn(
    process.execPath,
    [
      ARBOR_BIN,
      'worker',
      '--redis',
      url,
      '--concurrency',
      String(options.concurrency),
      '--pool',
      String(options.pool),
      '--key',
      key.file,
      '--supervisor-key',
      BENCH_SUPERVISOR.identity.publicKey.text,
    ],
    {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', HOME: dir },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  await written(worker, 'taking jobs from', 'arbor worker');
  const exited = new Promise<void>((resolve) =>
    worker.once('exit', () => {
      resolve();
    }),
  );
  return {
    pid: worker.pid ?? 0,
    stop: async () => {
      worker.kill('SIGKILL');
      await exited;
    },
  };
}

/**
 * CPU seconds a process has used, with its children that have exited and been waited for
 * (`utime + stime + cutime + cstime` of `/proc/PID/stat`).
 */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which is in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index]), 0);
  return ticks / TICKS;
}

/**
 * Runs `arbor plan run` to its end and returns its wall time and the CPU seconds the supervisor
 * process used (read by the shell that waited for it).
 */
export async function timePlanRun(
  dir: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ seconds: number; cpu: number }> {
  const script = `"$0" "$@" >/dev/null 2>plan.err; code=$?; read -r stat < /proc/$$/stat; echo "$stat" >&2; exit $code`;
  const started = process.hrtime.bigint();
  const child = spawn('sh', ['-c', script, process.execPath, ARBOR_BIN, 'plan', 'run', ...args], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', HOME: dir, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stat = '';
  child.stderr.on('data', (chunk: Buffer) => (stat += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (code !== 0)
    throw new Error(
      `arbor plan run exited ${String(code)}: ${readFileSync(join(dir, 'plan.err'), 'utf8').slice(-2000)}`,
    );
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const cpu = (Number(fields[13]) + Number(fields[14])) / TICKS;
  return { seconds, cpu };
}
