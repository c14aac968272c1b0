import { execFile } from 'node:child_process';
import { copyFile, mkdtemp } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ARBOR_BIN } from '../helpers/run-arbor.js';
import { loadNodeSqlite } from '../../src/store/open-sql-database.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
};

/** The scripts npm runs when a consumer installs the package (`prepare` included: npm lists it). */
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'prepare'];

describe('installing arbor', () => {
  it("runs no script of arbor's own, and builds no native module unless the user asks for one", () => {
    expect(Object.keys(pkg.scripts).filter((name) => INSTALL_SCRIPTS.includes(name))).toEqual([]);
    // The published package ships dist/ built.
    expect(pkg.scripts.prepack).toBe('npm run build');
    // better-sqlite3 is needed only where node:sqlite is missing: an optional peer, never
    // installed (or compiled) on a Node.js that has node:sqlite.
    expect(pkg.dependencies['better-sqlite3']).toBeUndefined();
    expect(pkg.optionalDependencies?.['better-sqlite3']).toBeUndefined();
    expect(pkg.peerDependencies?.['better-sqlite3']).toBe('^12.11.1');
    expect(pkg.peerDependenciesMeta?.['better-sqlite3']?.optional).toBe(true);
  });

  it('opens its store without better-sqlite3 where node:sqlite exists, and says what to install where not', async () => {
    // The CLI bundle alone, where no node_modules can be found: as a consumer has it before
    // installing the optional peer.
    const dir = await mkdtemp(path.join(tmpdir(), 'arbor-install-'));
    const bin = path.join(dir, 'arbor.mjs');
    await copyFile(ARBOR_BIN, bin);
    const { stdout } = await promisify(execFile)(process.execPath, [bin, 'doctor', '--json'], {
      cwd: dir,
      env: { PATH: process.env.PATH, HOME: dir },
    }).catch((error: unknown) => error as { stdout: string });
    const checks = JSON.parse(stdout) as {
      checks: { name: string; status: string; detail: string }[];
    };
    const sqlite = checks.checks.find((check) => check.name === 'sqlite');
    if (loadNodeSqlite() !== undefined) {
      expect(sqlite).toMatchObject({ status: 'ok' });
      expect(sqlite?.detail).toContain('through node:sqlite');
    } else {
      expect(sqlite?.status).toBe('missing');
      expect(sqlite?.detail).toContain('better-sqlite3 is not installed');
      expect(sqlite?.detail).toContain('`npm install better-sqlite3@12`');
      expect(sqlite?.detail).toContain('Node.js 22.13 or later');
    }
  });
});
