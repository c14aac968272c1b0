import path from 'node:path';
import {
  arborCacheDir,
  arborConfigDir,
  arborStateDir,
  canonicalPath,
  namedHosts,
  runStatePaths,
} from '../authority/index.js';
import {
  ArborError,
  type Caveats,
  type RunEventBodyOf,
  type SandboxSettings,
  type Scope,
} from '../protocol/index.js';
import { childEntryPath, type RootTemplate } from '../supervisor/index.js';
import { mintMarker, probeSandbox, SANDBOX_HINT, type TrustContext } from '../tools/index.js';
import type { RunConfig } from './settings.js';

/** What a run's root payload holds to keep it safe, and what to tell the user when it starts. */
export interface RunSafety {
  template: Pick<
    RootTemplate,
    'sandbox' | 'protected_paths' | 'runtime_trifecta' | 'content_isolation' | 'named_hosts'
  >;
  /** Lines for stderr as the run starts: a sandbox that is off or missing is never silent. */
  notices: string[];
  /** Run-level events for the store. */
  events: RunEventBodyOf<'sandbox.off' | 'sandbox.unavailable' | 'sandbox.host_network'>[];
}

/**
 * Gets a run's safety ready before anything runs: probes bubblewrap (unless the sandbox is off),
 * refuses to start under `--sandbox required` where it cannot work, subtracts the run's own state
 * (store, `.arbor/`, arbor's cache, and `readOnly` files such as a plan and its run-log) from every
 * grant, and mints the run's untrusted-content marker.
 */
export async function prepareRunSafety(
  settings: RunConfig,
  env: NodeJS.ProcessEnv,
  options: {
    cwd: string;
    readOnly?: readonly string[];
    /** Files of arbor's own secrets, hidden from every node (`arbor serve`'s token). */
    secrets?: readonly string[];
    /** A probe already made (a long-lived host probes once per grant, not for every run). */
    probe?: (trust: TrustContext) => Promise<SandboxSettings>;
  },
): Promise<RunSafety> {
  const notices: string[] = [];
  const events: RunSafety['events'] = [];
  const trust = trustContext(settings.grant, options.cwd);
  const probed: SandboxSettings =
    settings.security.sandbox === 'off'
      ? { mode: 'off' as const }
      : await (
          options.probe ??
          ((context) => probeSandbox({ env, bwrap: settings.security.bwrap, trust: context }))
        )(trust);
  // A copy: a long-lived host's probe is shared by its runs.
  const hostNetwork = settings.security.network === 'host' && probed.mode === 'bwrap';
  const sandbox: SandboxSettings = hostNetwork ? { ...probed, network: 'host' } : probed;
  if (sandbox.mode === 'off') {
    notices.push(
      'arbor: the exec sandbox is off (--sandbox off): commands run with your whole view of the machine',
    );
    events.push({ type: 'sandbox.off' });
  } else if (sandbox.mode === 'unavailable') {
    const reason = sandbox.reason ?? 'unknown reason';
    if (settings.security.sandbox === 'required') {
      throw new ArborError('config', `--sandbox required, but ${reason}: ${SANDBOX_HINT}.`);
    }
    if (settings.grant.exec === 'all' || settings.grant.exec.length > 0) {
      notices.push(
        `arbor: warning: the exec sandbox is unavailable (${reason}); exec and verify commands will be refused unless fs_read, fs_write and net are all \`all\`: ${SANDBOX_HINT}`,
      );
    }
    events.push({ type: 'sandbox.unavailable', reason });
  }
  if (hostNetwork) {
    if (settings.grant.net === 'all') {
      notices.push(
        "arbor: warning: commands of agents holding net = all share this machine's network (--sandbox-network host / security.network): its loopback services, private ranges, cloud metadata and abstract sockets are reachable",
      );
    }
    events.push({ type: 'sandbox.host_network' });
  }
  return {
    template: {
      sandbox,
      protected_paths: runStatePaths({
        cwd: options.cwd,
        dbPath: settings.dbPath,
        granted: [...listOf(settings.grant.fs_read), ...listOf(settings.grant.fs_write)],
        ownDirs: [arborCacheDir(env), arborStateDir(env), arborConfigDir(env)],
        anchors: trustAnchors(sandbox),
        ...(options.readOnly === undefined ? {} : { readOnly: options.readOnly }),
        ...(options.secrets === undefined ? {} : { secrets: options.secrets }),
      }),
      runtime_trifecta: settings.security.runtimeTrifecta,
      named_hosts: namedHosts(settings.grant.net),
      content_isolation: {
        marker: mintMarker(),
        untrusted_tools: settings.security.untrustedTools,
      },
    },
    notices,
    events,
  };
}

/**
 * What a trusted binary must stay clear of: every path the run's grant lets a node write, and the
 * working directory (the default grant, and where `PATH` entries such as `node_modules/.bin` and
 * `.venv/bin` usually are).
 */
export function trustContext(grant: Caveats, cwd: string): TrustContext {
  return {
    writable: [cwd, ...listOf(grant.fs_write)].map((p) => canonicalPath(path.resolve(cwd, p))),
  };
}

/**
 * The programs and code arbor runs with its own rights, read-only to every node: the Node binary
 * children run on, arbor's built code (children, the snapshot script, the CLI), and bubblewrap.
 * Where one of them lies inside a grant (arbor installed in the project's `node_modules`), a node
 * can still read it but never rewrite it for the next run.
 */
function trustAnchors(sandbox: SandboxSettings): { path: string; kind: 'file' | 'dir' }[] {
  const anchors: { path: string; kind: 'file' | 'dir' }[] = [
    { path: process.execPath, kind: 'file' },
    { path: path.dirname(path.dirname(childEntryPath())), kind: 'dir' },
  ];
  if (sandbox.bwrap !== undefined) anchors.push({ path: sandbox.bwrap, kind: 'file' });
  return anchors;
}

function listOf(scope: Scope): readonly string[] {
  return scope === 'all' ? [] : scope;
}
