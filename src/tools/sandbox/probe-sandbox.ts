import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import type { SandboxSettings } from '../../protocol/index.js';
import { bwrapArgs } from './bwrap-args.js';
import { nodeFsView } from './fs-view.js';
import { planMounts } from './sandbox-mounts.js';

/** Bounds the probe: a `bwrap` that hangs is as unusable as one that fails. */
const PROBE_TIMEOUT_MS = 10_000;

/**
 * Finds bubblewrap and checks it can build a sandbox here, once: `bwrap` is looked up on `PATH`
 * (or taken from `ARBOR_BWRAP`), then asked to run `sh -c 'exit 0'` in the same kind of sandbox a
 * command gets, with no grant at all. Where it is missing or cannot create namespaces (macOS, a
 * kernel or AppArmor that restricts unprivileged user namespaces, an unprivileged container), the
 * answer says why; it never throws.
 */
export async function probeSandbox(env: NodeJS.ProcessEnv = process.env): Promise<SandboxSettings> {
  if (process.platform !== 'linux')
    return { mode: 'unavailable', reason: `bubblewrap needs Linux; this is ${process.platform}` };
  const bwrap = env.ARBOR_BWRAP ?? findOnPath('bwrap', env.PATH ?? '');
  if (bwrap === undefined)
    return {
      mode: 'unavailable',
      reason: 'bubblewrap (`bwrap`) is not installed: not found on PATH',
    };
  if (!isExecutable(bwrap))
    return { mode: 'unavailable', reason: `bubblewrap at ${bwrap} is missing or not executable` };
  const plan = planMounts(
    {
      caveats: { fs_read: [], fs_write: [], net: [] },
      cwd: '/tmp',
      protect: [],
      pathEntries: [],
      home: undefined,
    },
    nodeFsView,
  );
  const { execFile } = await import('node:child_process');
  const outcome = await new Promise<{ ok: boolean; stderr: string }>((resolve) => {
    execFile(
      bwrap,
      [...bwrapArgs(plan), '--', '/bin/sh', '-c', 'exit 0'],
      { env: { PATH: '/usr/bin:/bin' }, timeout: PROBE_TIMEOUT_MS, encoding: 'utf8' },
      (error, _stdout, stderr) => {
        resolve({ ok: error === null, stderr: stderr.trim() });
      },
    );
  });
  if (outcome.ok) return { mode: 'bwrap', bwrap };
  return { mode: 'unavailable', bwrap, reason: describeFailure(outcome.stderr) };
}

function describeFailure(stderr: string): string {
  const line = stderr.split('\n').find((l) => l.trim() !== '') ?? 'it exited with an error';
  const why = `bubblewrap cannot create a sandbox here: ${line}`;
  if (/uid map|user namespace|Operation not permitted|Permission denied/i.test(line)) {
    return (
      `${why} (unprivileged user namespaces look restricted: on Ubuntu 23.10 and later AppArmor ` +
      'restricts them unless bwrap has a profile; in a container, the runtime must allow them)'
    );
  }
  return why;
}

function findOnPath(name: string, pathVar: string): string | undefined {
  for (const dir of pathVar.split(path.delimiter)) {
    if (dir === '' || !path.isAbsolute(dir)) continue;
    const candidate = path.join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
