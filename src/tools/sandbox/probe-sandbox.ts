import type { SandboxSettings } from '../../protocol/index.js';
import { bwrapArgs } from './bwrap-args.js';
import { nodeFsView } from './fs-view.js';
import { runFile } from './run-file.js';
import { planMounts } from './sandbox-mounts.js';
import {
  locateTrustedBinary,
  MISSING,
  operatorSetting,
  type TrustContext,
} from './trusted-binary.js';

/** Bounds the probe: a `bwrap` that hangs is as unusable as one that fails. */
const PROBE_TIMEOUT_MS = 10_000;

/**
 * Whether the `bwrap` at a path can build a sandbox here (why not, or `undefined`): a fact of the
 * machine, found out once per binary in a process. Whether the binary can be trusted depends on
 * each run's grant, and is checked on every probe.
 */
const built = new Map<string, Promise<string | undefined>>();

export interface SandboxProbeOptions {
  /** `ARBOR_BWRAP` is read from here. */
  env?: NodeJS.ProcessEnv;
  /** `security.bwrap` from the config file; `ARBOR_BWRAP` wins over it. */
  bwrap?: string | undefined;
  /** What the binary must stay clear of: the paths a node of the run may write. */
  trust: TrustContext;
}

/**
 * Finds bubblewrap and checks it can build a sandbox here: `bwrap` is taken from the fixed system
 * directories or the operator's setting, never from `PATH`, and must pass `trustProblem` (a
 * `bwrap` an agent could have written is treated as missing, never as working); then it is asked
 * to run `sh -c 'exit 0'` in the same kind of sandbox a command gets, with no grant at all. Where
 * it is missing, untrusted or cannot create namespaces (macOS, a kernel or AppArmor that
 * restricts unprivileged user namespaces, an unprivileged container), the answer says why; it
 * never throws.
 */
export async function probeSandbox(options: SandboxProbeOptions): Promise<SandboxSettings> {
  if (process.platform !== 'linux')
    return { mode: 'unavailable', reason: `bubblewrap needs Linux; this is ${process.platform}` };
  const env = options.env ?? process.env;
  const setting = operatorSetting(env, 'ARBOR_BWRAP', 'security.bwrap', options.bwrap);
  const found = locateTrustedBinary('bwrap', setting, options.trust);
  if (!found.trusted) {
    if (found.path === undefined)
      return {
        mode: 'unavailable',
        reason: `bubblewrap (\`bwrap\`) is not installed: ${found.reason}`,
      };
    return {
      mode: 'unavailable',
      bwrap: found.path,
      reason:
        found.reason === MISSING
          ? `bubblewrap at ${found.path} is ${MISSING}`
          : `bubblewrap at ${found.path} (${found.origin ?? 'found'}) cannot be trusted: ${found.reason}`,
    };
  }
  const bwrap = found.path;
  let failure = built.get(bwrap);
  if (failure === undefined) {
    failure = whyBwrapFails(bwrap);
    built.set(bwrap, failure);
  }
  const why = await failure;
  if (why === undefined) return { mode: 'bwrap', bwrap, origin: found.origin };
  return { mode: 'unavailable', bwrap, reason: describeFailure(why) };
}

/**
 * Runs `sh -c 'exit 0'` in the kind of sandbox a command gets, with no grant at all: what went
 * wrong, or `undefined` when it worked.
 */
async function whyBwrapFails(bwrap: string): Promise<string | undefined> {
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
  const run = await runFile(bwrap, [...bwrapArgs(plan), '--', '/bin/sh', '-c', 'exit 0'], {
    env: { PATH: '/usr/bin:/bin' },
    timeoutMs: PROBE_TIMEOUT_MS,
  });
  if (run.code === 0 && !run.timedOut) return undefined;
  const said = run.timedOut
    ? `it did not finish within ${PROBE_TIMEOUT_MS} ms`
    : (run.error?.message ?? run.stderr);
  return said.trim();
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
