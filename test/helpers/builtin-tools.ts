import { mkdtemp, readFile, readdir, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Caveats, JsonObject } from '../../src/protocol/index.js';
import {
  ToolRegistry,
  builtinTools,
  type BuiltinToolsOptions,
  type ToolOutput,
} from '../../src/tools/index.js';

/** A fresh directory under the system temp dir, by its real path (macOS links /tmp). */
export async function makeTempDir(
  prefix: string,
): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await realpath(await mkdtemp(path.join(tmpdir(), prefix)));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

export function caveats(overrides: Partial<Caveats>): Caveats {
  return {
    fs_read: 'all',
    fs_write: 'all',
    exec: [],
    net: [],
    max_calls: 'unlimited',
    ...overrides,
  };
}

/**
 * The built-in tools behind a real registry, so every call goes through the generated JSON Schema
 * as it would for a model. Commands run unsandboxed unless `sandbox` says otherwise: these tests
 * are about the tools' own checks; `test/tools/sandbox/` runs them in bubblewrap.
 */
export function builtinHost(
  options: Omit<BuiltinToolsOptions, 'sandbox' | 'protect'> &
    Partial<Pick<BuiltinToolsOptions, 'sandbox' | 'protect'>>,
): {
  registry: ToolRegistry;
  call: (name: string, args: JsonObject, signal?: AbortSignal) => Promise<ToolOutput>;
} {
  const registry = new ToolRegistry({
    sources: [builtinTools({ sandbox: { mode: 'off' }, protect: [], ...options })],
  });
  return {
    registry,
    call: (name, args, signal = new AbortController().signal) =>
      registry.call({ id: 'call-1', name, args }, { signal, callId: 'call-1' }),
  };
}

/** Whether a process has ended: gone, or a zombie nobody has reaped yet. */
export async function isProcessGone(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/** Descriptors this process holds now: a call that leaks one on any path shows up as a rise. */
export async function openDescriptors(): Promise<number> {
  return (await readdir('/proc/self/fd')).length;
}
