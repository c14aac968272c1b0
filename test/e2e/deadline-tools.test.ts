import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PlaybookInput } from '../../src/testing/fake-llm/index.js';
import { tempDb } from '../helpers/arbor-process.js';
import { fakeLlm } from '../helpers/fake-llm.js';
import { runArbor } from '../helpers/run-arbor.js';

/** Writes the shell's pid to `pids`, then becomes `sleep 300` with that pid. */
const SLEEP = 'echo $$ >> pids && exec sleep 300';
const execSleep = { tool_calls: [{ name: 'exec', args: { command: SLEEP } }] };

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A root that delegates to a child that sleeps, then (if it gets the chance) sleeps itself. */
function nested(provider: 'process' | 'spawn'): PlaybookInput {
  return {
    scripts: [
      { match: { contains: 'Child: wait' }, steps: [execSleep, { text: 'child done' }] },
      {
        steps: [
          {
            tool_calls: [{ name: 'subagent.run', args: { instruction: 'Child: wait', provider } }],
          },
          execSleep,
          { text: 'root done' },
        ],
      },
    ],
  };
}

interface Report {
  status: string;
  nodes: { path: string; status: string }[];
}

describe('a deadline reached during a tool call', () => {
  const cases: [string, PlaybookInput, string[]][] = [
    ['the root', { scripts: [{ steps: [execSleep, { text: 'done' }] }] }, ['0']],
    ['a process sub-agent and its parent', nested('process'), ['0', '0.1']],
    ['an in-process sub-agent and its parent', nested('spawn'), ['0', '0.1']],
  ];
  it.each(cases)(
    'stops the command of %s, ends the nodes `deadline` and exits 7',
    async (_, playbook, deadlinePaths) => {
      const server = await fakeLlm(playbook);
      const cwd = mkdtempSync(join(tmpdir(), 'arbor-deadline-'));
      const { code, stdout, stderr } = await runArbor(
        [
          'run',
          '--intel',
          server.url,
          '--model',
          'scripted',
          // Long enough for the tree to reach its commands on a loaded machine.
          '--deadline',
          '5s',
          '--sandbox',
          'off',
          '--json',
          'Do the task.',
        ],
        // The grace is long: the nodes must end on their own deadline, not on the teardown.
        { cwd, env: { ARBOR_DB: tempDb(), ARBOR_DEADLINE_GRACE_MS: '60000' } },
      );
      expect(stderr).toContain('run ended deadline');
      expect(code).toBe(7);
      const report = JSON.parse(stdout) as Report;
      expect(report.status).toBe('deadline');
      for (const path of deadlinePaths)
        expect(report.nodes.find((n) => n.path === path)?.status).toBe('deadline');
      const pids = readFileSync(join(cwd, 'pids'), 'utf8').trim().split('\n').map(Number);
      expect(pids.length).toBeGreaterThan(0);
      for (const pid of pids) expect(isAlive(pid)).toBe(false);
    },
  );
});
