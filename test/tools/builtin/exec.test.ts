import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { builtinHost, caveats, isProcessGone, makeTempDir } from '../../helpers/builtin-tools.js';

let ws: string;
let remove: () => Promise<void>;

beforeAll(async () => {
  ({ dir: ws, remove } = await makeTempDir('arbor-exec-'));
  await writeFile(path.join(ws, 'cargo'), '#!/bin/sh\necho planted\n', { mode: 0o755 });
});

afterAll(async () => {
  await remove();
});

const anyCommand = (limits = {}) =>
  builtinHost({ caveats: caveats({ exec: 'all' }), cwd: ws, limits });

/** Waits until the file a command writes its background pid to is there. */
async function pidFrom(file: string): Promise<number> {
  const text = await vi.waitFor(async () => {
    const content = await readFile(path.join(ws, file), 'utf8');
    if (!/^\d+\n$/.test(content)) throw new Error('pid not written yet');
    return content;
  });
  return Number(text.trim());
}

describe('exec runs only exactly granted commands', () => {
  const granted = {
    call: (name: string, args: Record<string, unknown>) =>
      builtinHost({ caveats: caveats({ exec: ['echo granted', 'cargo'] }), cwd: ws }).call(
        name,
        args,
      ),
    definitions: () =>
      builtinHost({
        caveats: caveats({ exec: ['echo granted', 'cargo'] }),
        cwd: ws,
      }).registry.definitions(),
  };

  it('runs a granted command in the working directory', async () => {
    const out = await granted.call('exec', { command: 'echo granted' });
    expect(out.isError).toBe(false);
    expect(out.content).toMatch(/^exit code 0 \(\d+ ms\)\ngranted$/);
  });

  it.each([
    ['a planted path to a granted name', './cargo'],
    ['a granted command with a second one chained', 'cargo; curl example.com'],
    ['a granted command with an extra argument', 'echo granted now'],
    ['trailing whitespace', 'echo granted '],
    ['a different case', 'Cargo'],
  ])('refuses %s (`%s`)', async (_what, command) => {
    const out = await granted.call('exec', { command });
    expect(out).toEqual({
      content: `\`exec\` refused: \`${command}\` is not an allowed command (exec, exact match; allowed: \`echo granted\`, \`cargo\`).`,
      isError: true,
      refused: true,
    });
  });

  it('tells the model which commands it may run', () => {
    const def = granted.definitions().find((d) => d.name === 'exec');
    expect(JSON.stringify(def?.input_schema)).toContain(
      'must be exactly one of: `echo granted`, `cargo`',
    );
  });

  it('builds the argument schema once per grant, and a new one for another grant', async () => {
    const schemaFor = (exec: string[], limits = {}) =>
      builtinHost({ caveats: caveats({ exec }), cwd: ws, limits })
        .registry.definitions()
        .find((d) => d.name === 'exec')?.input_schema;
    const first = schemaFor(['echo granted', 'cargo']);
    expect(schemaFor(['echo granted', 'cargo'])).toBe(first);
    const other = schemaFor(['echo other']);
    expect(other).not.toBe(first);
    expect(JSON.stringify(other)).toContain('must be exactly one of: `echo other`');
    expect(JSON.stringify(schemaFor(['echo other'], { execMaxTimeoutMs: 5_000 }))).toContain(
      '"maximum":5000',
    );
    // The schema a cached grant is offered with is still the one its calls are checked against.
    const refused = await builtinHost({
      caveats: caveats({ exec: ['echo other'] }),
      cwd: ws,
      limits: { execMaxTimeoutMs: 5_000 },
    }).call('exec', { command: 'echo other', timeout_ms: 6_000 });
    expect(refused.isError).toBe(true);
    expect(refused.content).toMatch(/timeout_ms/);
  });
});

describe('exec results', () => {
  it('reports a non-zero exit code as an error, with its output', async () => {
    const out = await anyCommand().call('exec', { command: 'echo out; echo err >&2; exit 3' });
    expect(out.isError).toBe(true);
    expect(out.content).toMatch(/^exit code 3 \(\d+ ms\)\nout\nerr$/);
  });

  it('runs in the tool cwd', async () => {
    const out = await anyCommand().call('exec', { command: 'pwd' });
    expect(String(out.content).split('\n')[1]).toBe(ws);
  });

  it('keeps the tail of long output and says how much was dropped', async () => {
    const out = await anyCommand({ execOutputBytes: 1024 }).call('exec', {
      command: 'i=0; while [ $i -lt 2000 ]; do echo "line $i"; i=$((i+1)); done',
    });
    const lines = String(out.content).split('\n');
    expect(lines[1]).toMatch(/^\[first \d+ bytes of output dropped\]$/);
    expect(lines.at(-1)).toBe('line 1999');
    expect(lines.slice(2).join('\n').length).toBeLessThanOrEqual(1024);
  });

  it('hands commands no credentials from the environment', async () => {
    const saved = process.env.ARBOR_API_KEY;
    process.env.ARBOR_API_KEY = 'sk-secret';
    try {
      const out = await anyCommand().call('exec', {
        command: 'echo "[${ARBOR_API_KEY:-unset}]"; env',
      });
      expect(out.content).toContain('[unset]');
      expect(out.content).not.toContain('sk-secret');
    } finally {
      if (saved === undefined) delete process.env.ARBOR_API_KEY;
      else process.env.ARBOR_API_KEY = saved;
    }
  });

  it('refuses a timeout above the maximum through the schema', async () => {
    const out = await anyCommand({ execMaxTimeoutMs: 1000 }).call('exec', {
      command: 'true',
      timeout_ms: 5000,
    });
    expect(out.content).toBe(
      'Invalid arguments for `exec`: `timeout_ms`: expected <= 1000, got 5000.',
    );
  });
});

describe('exec stops the whole process group', () => {
  it('on timeout: the command and the background job it started are gone', async () => {
    const out = await anyCommand().call('exec', {
      command: 'sleep 300 & echo $! > bg-timeout.pid; wait',
      timeout_ms: 300,
    });
    expect(out.isError).toBe(true);
    expect(out.content).toMatch(
      /^timed out after 300 ms: the process group was stopped with SIGTERM\n/,
    );
    const pid = await pidFrom('bg-timeout.pid');
    await vi.waitFor(async () => {
      expect(await isProcessGone(pid)).toBe(true);
    });
  });

  it('on timeout: SIGKILL follows when the group ignores SIGTERM', async () => {
    const out = await anyCommand({ execKillGraceMs: 100 }).call('exec', {
      command: "trap '' TERM; sleep 300 & echo $! > bg-stubborn.pid; wait",
      timeout_ms: 300,
    });
    expect(out.content).toMatch(/stopped with SIGTERM, then SIGKILL/);
    const pid = await pidFrom('bg-stubborn.pid');
    await vi.waitFor(async () => {
      expect(await isProcessGone(pid)).toBe(true);
    });
  });

  it('when the shell exits first: a background job left behind is killed, not waited for', async () => {
    const out = await anyCommand().call('exec', {
      command: 'sleep 300 & echo $! > bg-left.pid; echo done',
      timeout_ms: 60_000,
    });
    expect(out.content).toMatch(/^exit code 0 \(\d+ ms\)\ndone$/);
    const pid = await pidFrom('bg-left.pid');
    await vi.waitFor(async () => {
      expect(await isProcessGone(pid)).toBe(true);
    });
  });

  it('on cancel: the call rejects with the reason once the group is gone', async () => {
    const controller = new AbortController();
    const pending = anyCommand().call(
      'exec',
      { command: 'sleep 300 & echo $! > bg-cancel.pid; wait' },
      controller.signal,
    );
    const pid = await pidFrom('bg-cancel.pid');
    controller.abort(new Error('node cancelled'));
    await expect(pending).rejects.toThrow('node cancelled');
    await vi.waitFor(async () => {
      expect(await isProcessGone(pid)).toBe(true);
    });
  });
});
