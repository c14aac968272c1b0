import { mkdtempSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { Redis } from 'ioredis';
import { FleetIdentity } from '../../src/fleet/fleet-identity.js';
import { writePrivateKeyFile } from '../../src/fleet/key-file.js';
import { ArborProcess, tempDb } from './arbor-process.js';
import type { TestRedis } from './redis.js';

/** A key pair of a test fleet: its private key in a file of mode 0600, as keygen writes it. */
export interface TestIdentity {
  name: string;
  identity: FleetIdentity;
  /** The private key's file. */
  file: string;
  /** The public key, as `arbor worker keygen` prints it. */
  publicKey: string;
}

const keyDir = mkdtempSync(join(tmpdir(), 'arbor-fleet-keys-'));

/** A new key pair named `name`, written to a key file of its own. */
export function testIdentity(name: string): TestIdentity {
  const { identity, pem } = FleetIdentity.generate();
  const file = join(keyDir, `${name}-${identity.publicKey.id}.key`);
  writePrivateKeyFile(file, pem);
  return { name, identity, file, publicKey: identity.publicKey.text };
}

/** The tests' supervisors' key pair (never a real one). */
export const SUPERVISOR = testIdentity('supervisor');
/** Key pairs of workers, each admitted by the tests' configs; `startWorker` deals them in turn. */
export const WORKERS: readonly TestIdentity[] = Array.from({ length: 6 }, (_, i) =>
  testIdentity(`w${i + 1}`),
);
let dealt = 0;

/** Every test private key as text could show it: none may reach Redis or a run's output. */
export function privateKeyForms(): string[] {
  return [SUPERVISOR, ...WORKERS].flatMap((key) => key.identity.secretForms());
}

/** `[[queue.admit]]` tables for `workers` (every one of `WORKERS` unless told). */
export function admitTables(workers: readonly TestIdentity[] = WORKERS): string {
  return workers
    .map(
      (worker) => `[[queue.admit]]\nname = "${worker.name}"\npublic_key = "${worker.publicKey}"\n`,
    )
    .join('');
}

let admitOnly: string | undefined;
/** A config file that only admits the test workers: for runs whose fleet comes from elsewhere. */
export function admitConfig(): string {
  if (admitOnly !== undefined) return admitOnly;
  admitOnly = join(mkdtempSync(join(tmpdir(), 'arbor-fleet-config-')), 'admit.toml');
  writeFileSync(admitOnly, admitTables());
  return admitOnly;
}
/** The model key the tests' supervisors hold: it must never reach Redis. */
export const MODEL_KEY = 'sk-fleet-test-4c1d9e7a2b8f3e6d';

const running: ArborProcess[] = [];

afterEach(async () => {
  const workers = running.splice(0);
  for (const worker of workers) if (worker.child.exitCode === null) worker.signal('SIGKILL');
  await Promise.all(workers.map((worker) => worker.exited));
});

/**
 * What every fleet process of a test gets: the supervisor's key file and the Redis URL with its
 * password (a worker's own key, given by `--key`, wins over the file).
 */
export function fleetEnv(redis: TestRedis): NodeJS.ProcessEnv {
  return { ARBOR_FLEET_PRIVATE_KEY_FILE: SUPERVISOR.file, ARBOR_REDIS_URL: redis.secretUrl };
}

/**
 * A config file whose `[queue]` names the fleet's Redis by a variable (`ARBOR_REDIS_URL`, as
 * `fleetEnv` sets it, unless told another), with `more` lines of the table after it, admitting
 * the test workers.
 */
export async function fleetConfig(more = '', variable = 'ARBOR_REDIS_URL'): Promise<string> {
  const file = join(mkdtempSync(join(tmpdir(), 'arbor-fleet-config-')), 'arbor.toml');
  await writeFile(file, `[queue]\nredis = "env:${variable}"\n${more}${admitTables()}`);
  return file;
}

/**
 * `arbor run … --json --events ndjson` as a process, on the fake LLM at `llmUrl`, with the fleet's
 * env; without a `--config` in `args`, one that admits the test workers.
 */
export function runOnFleet(
  redis: TestRedis,
  llmUrl: string,
  args: string[],
  instruction: string,
  env: NodeJS.ProcessEnv = {},
): { arbor: ArborProcess; db: string } {
  const db = tempDb();
  const arbor = new ArborProcess(
    [
      'run',
      '--intel',
      llmUrl,
      '--model',
      'm',
      '--json',
      '--events',
      'ndjson',
      ...(args.includes('--config') ? [] : ['--config', admitConfig()]),
      ...args,
      instruction,
    ],
    { env: { ARBOR_DB: db, ARBOR_API_KEY: MODEL_KEY, ...fleetEnv(redis), ...env } },
  );
  return { arbor, db };
}

/**
 * Starts an `arbor worker` in a working directory of its own (standing in for a machine of its
 * own), with the next of the admitted `WORKERS`' keys (or `identity`), serving `SUPERVISOR`, and
 * resolves once it takes jobs.
 */
export async function startWorker(
  redis: TestRedis,
  options: {
    concurrency?: number;
    env?: NodeJS.ProcessEnv;
    args?: string[];
    identity?: TestIdentity;
  } = {},
): Promise<ArborProcess & { dir: string; identity: TestIdentity }> {
  const dir = mkdtempSync(join(tmpdir(), 'arbor-worker-'));
  const identity = options.identity ?? WORKERS[dealt++ % WORKERS.length] ?? SUPERVISOR;
  const worker = new ArborProcess(
    [
      'worker',
      '--concurrency',
      String(options.concurrency ?? 4),
      '--key',
      identity.file,
      '--supervisor-key',
      SUPERVISOR.publicKey,
      ...(options.args ?? []),
    ],
    {
      cwd: dir,
      env: { ARBOR_API_KEY: MODEL_KEY, ...fleetEnv(redis), ...options.env },
    },
  );
  running.push(worker);
  await worker.waitForStderr(/taking jobs from/);
  return Object.assign(worker, { dir, identity });
}

/** The jobs a worker has taken, and those that have ended, from its log. */
export function jobsOf(worker: ArborProcess): { took: number; ended: number } {
  return {
    took: worker.stderr.match(/^arbor worker: took /gm)?.length ?? 0,
    ended: worker.stderr.match(/^arbor worker: ended /gm)?.length ?? 0,
  };
}

/** Waits until `check` holds of the worker's log. */
export async function waitForLog(
  worker: ArborProcess,
  check: (jobs: { took: number; ended: number }) => boolean,
): Promise<void> {
  await worker.waitUntil(() => check(jobsOf(worker)), 'its log showed the jobs awaited');
}

/** Every key in the Redis and everything it holds, as text: for scanning for secrets. */
export async function dumpRedis(redis: TestRedis): Promise<{ keys: string[]; text: string }> {
  const client = new Redis(redis.secretUrl);
  try {
    const keys = await client.keys('*');
    const parts: string[] = [];
    for (const key of keys) {
      const type = await client.type(key);
      parts.push(key);
      if (type === 'string') parts.push((await client.get(key)) ?? '');
      else if (type === 'hash') parts.push(JSON.stringify(await client.hgetall(key)));
      else if (type === 'list') parts.push(JSON.stringify(await client.lrange(key, 0, -1)));
      else if (type === 'set') parts.push(JSON.stringify(await client.smembers(key)));
      else if (type === 'zset') parts.push(JSON.stringify(await client.zrange(key, 0, -1)));
      else if (type === 'stream') parts.push(JSON.stringify(await client.xrange(key, '-', '+')));
    }
    return { keys, text: parts.join('\n') };
  } finally {
    client.disconnect();
  }
}
