import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { describeWithSandbox } from '../helpers/sandbox.js';
import { rounds, scriptedRun, workspace } from '../helpers/scripted-run.js';

const TOKEN = 'arbor-operator-token-0f1e2d3c4b5a6978';
const OLD_STORE = 'SQLite format 3 OLD-STORE-CONTENTS';

/**
 * A sibling run in a directory where another run (`arbor serve`, an older `arbor run`) keeps its
 * state: this run's own store is elsewhere (`--db`), or in memory, so nothing of `.arbor/` is its
 * own — and still no node may read it, by file tool or by command, nor arbor's state directory.
 */
describeWithSandbox('a sibling run reaching for state that is not its own', () => {
  it.each([['elsewhere'], [':memory:']])(
    'reads nothing of .arbor/ or the state directory with --db %s',
    async (where) => {
      const { base, ws } = await workspace();
      mkdirSync(path.join(ws, '.arbor'));
      writeFileSync(path.join(ws, '.arbor', 'serve-token'), `${TOKEN}\n`);
      writeFileSync(path.join(ws, '.arbor', 'old.db'), OLD_STORE);
      const stateDir = path.join(ws, 'state');
      mkdirSync(path.join(stateDir, 'serve-tokens'), { recursive: true });
      writeFileSync(path.join(stateDir, 'serve-tokens', 'abcd'), `${TOKEN}\n`);
      const db = where === ':memory:' ? ':memory:' : path.join(base, 'other', 'arbor.db');
      const run = await scriptedRun({
        cwd: ws,
        args: ['--db', db],
        env: { ARBOR_STATE_DIR: stateDir },
        script: rounds(
          {
            tool_calls: [
              { name: 'fs.read', args: { path: '.arbor/serve-token' } },
              { name: 'fs.read', args: { path: '.arbor/old.db' } },
              { name: 'fs.list', args: { path: '.arbor' } },
              { name: 'fs.read', args: { path: 'state/serve-tokens/abcd' } },
              { name: 'exec', args: { command: 'cat .arbor/serve-token .arbor/old.db' } },
              { name: 'exec', args: { command: 'cat state/serve-tokens/abcd' } },
              { name: 'exec', args: { command: 'ls -la .arbor state' } },
            ],
          },
          { text: 'done' },
        ),
      });
      expect(run.code, run.stderr).toBe(0);
      expect(run.results).toHaveLength(7);
      const seen = run.results.join('\n');
      expect(seen).not.toContain(TOKEN);
      expect(seen).not.toContain('OLD-STORE-CONTENTS');
      // Neither listing, by file tool or by command, shows what is there.
      expect(run.results[2]).toMatch(/^`fs.list` refused/);
      expect(run.results[6]).not.toMatch(/serve-token|old\.db|abcd/);
    },
  );
});
