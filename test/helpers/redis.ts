import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { afterAll } from 'vitest';
import { freePort } from './mcp-servers.js';
import { describeNeeding } from './needs.js';

/** Debian's `redis-server` (`apt-get install redis-server`), or the one `ARBOR_REDIS_SERVER` names. */
export const REDIS_SERVER = process.env.ARBOR_REDIS_SERVER ?? 'redis-server';

/** A Redis server a test file started: loopback only, no persistence, stopped after the file. */
export interface TestRedis {
  port: number;
  /** A URL without the password (what `--redis` takes). */
  url: string;
  /** The URL with the password (what `ARBOR_REDIS_URL` holds). */
  secretUrl: string;
  password: string;
  stop(): Promise<void>;
}

const started: TestRedis[] = [];

afterAll(async () => {
  await Promise.all(started.splice(0).map((redis) => redis.stop()));
});

/**
 * Starts `redis-server` on a free loopback port with a password and no persistence (no RDB, no
 * AOF, in a throwaway directory), and resolves once it accepts connections.
 */
export async function startRedis(password = 'fleet-test-pass-7d1c'): Promise<TestRedis> {
  const port = await freePort();
  const server: ChildProcess = spawn(
    REDIS_SERVER,
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--requirepass',
      password,
      '--dir',
      '/tmp',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      if (output.includes('Ready to accept connections')) resolve();
    };
    server.stdout?.on('data', onData);
    server.stderr?.on('data', onData);
    server.once('error', reject);
    server.once('exit', (code) => {
      reject(new Error(`redis-server exited (${String(code)}) before it was ready:\n${output}`));
    });
  });
  const exited = new Promise<void>((resolve) =>
    server.once('exit', () => {
      resolve();
    }),
  );
  const redis: TestRedis = {
    port,
    url: `redis://127.0.0.1:${port}`,
    secretUrl: `redis://:${password}@127.0.0.1:${port}`,
    password,
    stop: async () => {
      if (server.exitCode === null) server.kill('SIGKILL');
      await exited;
    },
  };
  started.push(redis);
  return redis;
}

function hasRedis(): boolean {
  return spawnSync(REDIS_SERVER, ['--version'], { stdio: 'ignore' }).status === 0;
}

/** A `describe` for tests that need `redis-server` (see `describeNeeding`). */
export function describeWithRedis(name: string, body: () => void): void {
  const missing = hasRedis()
    ? undefined
    : `${REDIS_SERVER} is missing (apt-get install redis-server)`;
  describeNeeding(name, 'redis-server', missing, body);
}
