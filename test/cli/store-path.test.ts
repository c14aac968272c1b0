import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fakeLlm, steps } from '../helpers/fake-llm.js';
import { runArbor } from '../helpers/run-arbor.js';

const dir = mkdtempSync(join(tmpdir(), 'arbor-cli-db-'));
const notSqlite = join(dir, 'notes.txt');
writeFileSync(notSqlite, 'plain text\n');
const newer = join(dir, 'newer.db');

describe('a --db arbor cannot use', () => {
  it.each([
    [notSqlite, `Cannot use the store at ${notSqlite}: it is not an SQLite database.`],
    ['/etc/passwd', 'Cannot use the store at /etc/passwd: it is not an SQLite database.'],
    [
      '/proc/nope/x.db',
      'Cannot use the store at /proc/nope/x.db: cannot create the directory /proc/nope (ENOENT).',
    ],
    [dir, `Cannot use the store at ${dir}: it is a directory; --db names the database file.`],
  ])('arbor run --db %s: exit 2, a message naming it, no model call', async (db, message) => {
    const server = await fakeLlm(steps({ text: 'never asked' }));
    const before = existsSync(db) && statSync(db).isFile() ? readFileSync(db) : undefined;
    const run = await runArbor(['run', '--intel', server.url, '--model', 'm', '--db', db, 'Hi.']);
    expect(run.stderr).toBe(`arbor: ${message}\n`);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(server.requests).toHaveLength(0);
    if (before !== undefined) expect(readFileSync(db)).toEqual(before);
    expect(existsSync(`${db}-wal`)).toBe(false);
  });

  it('refuses a store from a newer arbor for every command that opens it', async () => {
    const server = await fakeLlm(steps({ text: 'Done.' }));
    const first = await runArbor([
      'run',
      '--intel',
      server.url,
      '--model',
      'm',
      '--db',
      newer,
      'Hi.',
    ]);
    expect(first.code).toBe(0);
    const { openSqlDatabase } = await import('../../src/store/index.js');
    const raw = openSqlDatabase(newer);
    raw.pragma('user_version = 999');
    raw.close();
    for (const args of [
      ['run', '--intel', server.url, '--model', 'm', '--db', newer, 'Hi.'],
      ['gate', 'list', '--db', newer],
    ]) {
      const run = await runArbor(args);
      expect(run.stderr).toMatch(
        new RegExp(`^arbor: The store at ${newer} has schema version 999, newer than this arbor`),
      );
      expect(run.code).toBe(2);
    }
    expect(server.requests).toHaveLength(1);
  });
});
