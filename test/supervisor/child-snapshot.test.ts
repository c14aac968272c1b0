import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { arborCacheDir } from '../../src/authority/index.js';
import {
  ensureChildSnapshot,
  snapshotEntryPath,
  snapshotPath,
  type SnapshotState,
} from '../../src/supervisor/index.js';

const SUPERVISOR = fileURLToPath(new URL('../../dist/supervisor/index.js', import.meta.url));
const BUILD_TIMEOUT = 120_000;

function freshCache(): string {
  return mkdtempSync(join(tmpdir(), 'arbor-snapshot-cache-'));
}

function env(cache: string): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '', ARBOR_CACHE_DIR: cache };
}

/** `ensureChildSnapshot` in a separate Node process, as another arbor on the machine would call it. */
async function ensureElsewhere(cache: string): Promise<SnapshotState> {
  const script = `import(${JSON.stringify(SUPERVISOR)}).then(async (m) => process.stdout.write(JSON.stringify(await m.ensureChildSnapshot({ ARBOR_CACHE_DIR: ${JSON.stringify(cache)} }))))`;
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', script]);
  return JSON.parse(stdout) as SnapshotState;
}

describe('the child start-up snapshot', () => {
  it(
    'is built on first use into the cache, checked, and found there afterwards',
    async () => {
      const cache = freshCache();
      const first = await ensureChildSnapshot(env(cache));
      expect(first.reason).toBeUndefined();
      expect(first.built).toBe(true);
      expect(first.buildMs).toBeGreaterThan(0);
      expect(first.blob).toBe(snapshotPath(cache, snapshotEntryPath() ?? ''));
      expect(statSync(first.blob ?? '').size).toBeGreaterThan(1_000_000);
      // The cache directory is the user's alone.
      expect(statSync(join(cache, 'child-snapshot')).mode & 0o777).toBe(0o700);
      expect(readdirSync(join(cache, 'child-snapshot'))).toEqual([first.blob?.split('/').at(-1)]);

      await expect(ensureChildSnapshot(env(cache))).resolves.toEqual({
        blob: first.blob,
        built: false,
        warnings: [],
      });
    },
    BUILD_TIMEOUT,
  );

  it(
    'leaves one whole snapshot and nothing else when processes race to build it',
    async () => {
      const cache = freshCache();
      const [one, two] = await Promise.all([ensureElsewhere(cache), ensureElsewhere(cache)]);
      expect([one.reason, two.reason]).toEqual([undefined, undefined]);
      expect(one.blob).toBe(two.blob);
      const files = readdirSync(join(cache, 'child-snapshot'));
      expect(files).toHaveLength(1);
      expect(files[0]).toMatch(/^child-[0-9a-f]{24}\.blob$/);
    },
    BUILD_TIMEOUT,
  );

  it('is not used, and says so, when ARBOR_CHILD_SNAPSHOT is off', async () => {
    const cache = freshCache();
    const state = await ensureChildSnapshot({ ...env(cache), ARBOR_CHILD_SNAPSHOT: 'off' });
    expect(state).toEqual({
      reason: 'turned off by ARBOR_CHILD_SNAPSHOT=off',
      built: false,
      warnings: [],
    });
    expect(existsSync(join(cache, 'child-snapshot'))).toBe(false);
  });

  it('falls back with the reason when the cache cannot be written', async () => {
    const blocked = join(freshCache(), 'not-a-directory');
    writeFileSync(blocked, 'in the way');
    const state = await ensureChildSnapshot(env(blocked));
    expect(state.blob).toBeUndefined();
    expect(state.reason).toMatch(/^the child snapshot: .*(ENOTDIR|EEXIST)/);
  });

  it('is named by the script it is built from, and renamed when the script changes', () => {
    const dir = freshCache();
    const [one, two] = ['one.cjs', 'two.cjs'].map((name, i) => {
      writeFileSync(join(dir, name), `void ${'0'.repeat(i + 1)};`);
      return join(dir, name);
    });
    if (one === undefined || two === undefined) throw new Error('unreachable');
    const first = snapshotPath('/c', one);
    expect(snapshotPath('/c', one)).toBe(first);
    expect(snapshotPath('/c', two)).not.toBe(first);
    expect(first).toMatch(/^\/c\/child-snapshot\/child-[0-9a-f]{24}\.blob$/);
    // The name is worked out once per version of the script, never served stale.
    writeFileSync(one, 'void "changed";');
    expect(snapshotPath('/c', one)).not.toBe(first);
  });

  it('lives in ARBOR_CACHE_DIR, else XDG_CACHE_HOME/arbor, else ~/.cache/arbor', () => {
    expect(arborCacheDir({ ARBOR_CACHE_DIR: '/a', XDG_CACHE_HOME: '/x' })).toBe('/a');
    expect(arborCacheDir({ XDG_CACHE_HOME: '/x' })).toBe('/x/arbor');
    expect(arborCacheDir({})).toBe(join(homedir(), '.cache', 'arbor'));
  });
});
