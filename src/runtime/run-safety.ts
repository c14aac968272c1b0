import { arborCacheDir, namedHosts, runStatePaths } from '../authority/index.js';
import { ArborError, type SandboxSettings } from '../protocol/index.js';
import type { RootTemplate } from '../supervisor/index.js';
import { mintMarker, probeSandbox, SANDBOX_HINT } from '../tools/index.js';
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
  events: { kind: string; data: Record<string, unknown> }[];
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
    /** A probe already made (a long-lived host probes once, not for every run). */
    probe?: () => Promise<SandboxSettings>;
  },
): Promise<RunSafety> {
  const notices: string[] = [];
  const events: RunSafety['events'] = [];
  const sandbox =
    settings.security.sandbox === 'off'
      ? { mode: 'off' as const }
      : await (options.probe ?? (() => probeSandbox(env)))();
  if (sandbox.mode === 'off') {
    notices.push(
      'arbor: the exec sandbox is off (--sandbox off): commands run with your whole view of the machine',
    );
    events.push({ kind: 'sandbox.off', data: {} });
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
    events.push({ kind: 'sandbox.unavailable', data: { reason } });
  }
  return {
    template: {
      sandbox,
      protected_paths: runStatePaths({
        cwd: options.cwd,
        dbPath: settings.dbPath,
        // arbor's cache (the child's start-up snapshot, which every child process runs).
        caches: [arborCacheDir(env)],
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
