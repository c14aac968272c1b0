import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { runStatePaths } from '../../../src/authority/index.js';
import { builtinHost, caveats, makeTempDir } from '../../helpers/builtin-tools.js';
import { describeWithSandbox, SANDBOX } from '../../helpers/sandbox.js';

let ws: string;
let remove: () => Promise<void>;

beforeAll(async () => {
  ({ dir: ws, remove } = await makeTempDir('arbor-exec-sandbox-'));
  await writeFile(path.join(ws, 'notes.txt'), 'notes\n');
});

afterAll(async () => {
  await remove();
});

function sandboxed(overrides: Parameters<typeof caveats>[0] = {}) {
  return builtinHost({
    caveats: caveats({ fs_read: [ws], fs_write: [ws], exec: 'all', net: [], ...overrides }),
    cwd: ws,
    sandbox: SANDBOX,
    protect: runStatePaths({ cwd: ws, dbPath: '.arbor/arbor.db' }),
  });
}

/** Host processes whose command line holds `marker`. */
function hostProcesses(marker: string): string[] {
  const out = execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' });
  return out.split('\n').filter((line) => line.includes(marker) && !line.includes('ps -eo'));
}

describeWithSandbox('exec in the sandbox', () => {
  it('ends a process that left the group on purpose when the command ends', async () => {
    // A sleep whose argument no other process has: how it is found among the host's processes.
    const marker = `301.${process.pid}${Date.now() % 100_000}`;
    const out = await sandboxed().call('exec', {
      command: `setsid sleep ${marker} </dev/null >/dev/null 2>&1 & echo started`,
    });
    expect(out.content).toMatch(/^exit code 0 .*\nstarted$/s);
    await vi.waitFor(() => {
      expect(hostProcesses(marker)).toEqual([]);
    }, 5_000);
  });

  it('keeps the private /tmp and HOME private and empty for each command', async () => {
    const host = sandboxed();
    await host.call('exec', { command: 'echo kept > /tmp/x; echo kept > "$HOME/y"' });
    const out = await host.call('exec', { command: 'ls -A /tmp "$HOME"; echo "HOME=$HOME"' });
    expect(out.content).toContain('HOME=/tmp/home');
    // Whole lines: a granted directory mounted under /tmp may have a name ending in `x`.
    const entries = String(out.content).split('\n');
    expect(entries).not.toContain('x');
    expect(entries).not.toContain('y');
  });

  it("cannot see the host's /proc, even under fs_read = all", async () => {
    const out = await sandboxed({ fs_read: 'all' }).call('exec', {
      command: `cat /proc/${process.pid}/environ 2>&1 | head -c 100; echo; ls /proc | grep -c "^[0-9]"`,
    });
    expect(out.content).toContain('No such file or directory');
  });

  it('refuses /proc to the file tools, whatever fs_read says', async () => {
    const host = sandboxed({ fs_read: 'all' });
    const out = await host.call('fs.read', { path: `/proc/${process.pid}/environ` });
    expect(out.content).toBe(
      `\`fs.read\` refused: /proc/${process.pid}/environ is under /proc, which the file tools never touch (process memory and environments live there)`,
    );
    const viaRoot = await host.call('fs.read', { path: '/proc/self/root/etc/hostname' });
    expect(viaRoot.isError).toBe(true);
  });
});
