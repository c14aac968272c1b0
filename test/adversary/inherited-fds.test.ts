import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  LOG_FD,
  SECRET,
  SECRET_FD,
  plantFiles,
  runSubject,
  type PlantedFiles,
} from '../helpers/inherited-fds.js';
import { describeWithSandbox } from '../helpers/sandbox.js';
import { scriptedRun, workspace } from '../helpers/scripted-run.js';

/**
 * An operator starts arbor with descriptors open that were never meant for it, `arbor run …
 * 200<secret 201>>log`, and a command the model runs (or an agent child) tries to use them.
 */

let planted: PlantedFiles | undefined;
afterEach(() => {
  planted?.close();
  planted = undefined;
});

function plant(): PlantedFiles {
  planted = plantFiles();
  return planted;
}

/** One exec call per command, all in one step, then an answer. */
function execAll(...commands: string[]): Record<string, unknown>[] {
  return [
    { tool_calls: commands.map((command) => ({ name: 'exec', args: { command } })) },
    { text: 'done' },
  ];
}

/** Routes every `exec` call to the supervisor's tool gate, where it runs in arbor's own process. */
const ALLOW_EXEC = `
[[security.policy]]
action = "allow"
reason = "gated, so it runs in the supervisor"
[security.policy.match]
tool = "exec"
`;

describeWithSandbox('descriptors `arbor run` inherited, from a sandboxed command', () => {
  it.each([
    ['run by the agent child', false],
    ["run by the supervisor's tool gate (a policy rule matches exec)", true],
  ])(
    'are neither readable nor writable under --net none --fs-write none: %s',
    async (_where, gated) => {
      const files = plant();
      const { ws, outside } = await workspace();
      const config = path.join(outside, 'arbor.toml');
      writeFileSync(config, ALLOW_EXEC);
      const run = await scriptedRun({
        cwd: ws,
        args: ['--net', 'none', '--fs-write', 'none', ...(gated ? ['--config', config] : [])],
        fds: files.fds,
        script: execAll(
          `cat /proc/self/fd/${SECRET_FD}`,
          'ls -l /proc/self/fd',
          // Every process in the sandbox: the shell and bwrap's own init.
          'ls -l /proc/[0-9]*/fd',
          `echo pwned > /proc/self/fd/${LOG_FD}`,
          `bash -c 'cat <&${SECRET_FD}; echo pwned >&${LOG_FD}'`,
        ),
      });
      expect(run.code, run.stderr).toBe(0);
      expect(run.results).toHaveLength(5);
      if (gated) expect(run.events.filter((e) => e.event === 'policy.decision')).toHaveLength(5);
      for (const result of run.results) expect(result).not.toContain(SECRET);
      // Nothing in the sandbox even names the files: fd 200 and 201 are /dev/null there.
      expect(run.results[1]).toMatch(new RegExp(` ${SECRET_FD} -> /dev/null`));
      for (const result of run.results) expect(result).not.toContain(files.dir);
      expect(files.log()).toBe('');
      for (const body of run.bodies) expect(JSON.stringify(body)).not.toContain(SECRET);
    },
  );
});

describe.runIf(process.platform === 'linux')(
  'descriptors the supervisor inherited, in the processes it starts',
  () => {
    it('are not held by a child started through the supervisor', async () => {
      const files = plant();
      // The supervisor side holds them (the attack is armed)…
      const listed = await runSubject(files.fds, ['list']);
      expect(listed.fds).toEqual(expect.arrayContaining([SECRET_FD, LOG_FD]));
      // …its child does not: /proc/<child pid>/fd names neither file.
      const child = await runSubject(files.fds, ['agent-child']);
      const fds = child.fds as Record<string, string>;
      expect(Object.keys(fds)).toEqual(expect.arrayContaining(['0', '1', '2']));
      for (const target of Object.values(fds)) expect(target).not.toContain(files.dir);
    });

    it('do not reach an MCP stdio server it starts', async () => {
      const files = plant();
      const server = await runSubject(files.fds, [
        'mcp',
        `ls -l /proc/self/fd >&2; cat /proc/self/fd/${SECRET_FD} >&2; echo pwned > /proc/self/fd/${LOG_FD}`,
      ]);
      expect(server.pid).toEqual(expect.any(Number));
      expect(server.output).toMatch(new RegExp(` ${SECRET_FD} -> /dev/null`));
      expect(server.output).not.toContain(SECRET);
      expect(server.output).not.toContain(files.dir);
      expect(files.log()).toBe('');
    });
  },
);
