import { closeSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import type { Caveats, ProtectedPath, SandboxSettings } from '../../protocol/index.js';
import { bwrapArgs } from './bwrap-args.js';
import { nodeFsView, type FsView } from './fs-view.js';
import type { NetBridge } from './net-bridge.js';
import { planMounts } from './sandbox-mounts.js';
import { SYSTEM_BIN_DIRS, systemBinary } from './trusted-binary.js';

/** How to get bubblewrap, or how to do without it: said wherever a command is refused for lack of it. */
export const SANDBOX_HINT =
  'install bubblewrap (Debian/Ubuntu: `apt-get install bubblewrap`; Fedora: `dnf install bubblewrap`; ' +
  'Arch: `pacman -S bubblewrap`), or opt out with `--sandbox off` (config: `security.sandbox = "off"`) ' +
  'to run commands with your whole view of the machine';

export interface CommandSandboxOptions {
  settings: SandboxSettings;
  /** The authority the command runs under: its file axes and network. */
  caveats: Pick<Caveats, 'fs_read' | 'fs_write' | 'net'>;
  /** The run's own state, taken away from every mount. */
  protect: readonly ProtectedPath[];
  /** Absolute working directory. */
  cwd: string;
  /** The command's environment: already only the allowed variables. */
  env: Readonly<Record<string, string>>;
  /** How the command reaches the network (default: it does not; see `CommandNetwork`). */
  network?: CommandNetwork;
  fs?: FsView;
}

/**
 * A sandboxed command's network. It always has a network namespace of its own; its only way out
 * is its egress session, bridged into it (`proxy`), unless the operator opted out of the proxy for
 * the whole run (`host`: the host's own namespace, as before the proxy). `none`: no way out, and
 * `why` is what the command is told when that is not what its grant says.
 */
export type CommandNetwork =
  { kind: 'none'; why?: string } | { kind: 'proxy'; bridge: NetBridge } | { kind: 'host' };

export type PreparedCommand =
  | {
      ok: true;
      /** The argument vector the shell is started under (`bwrap … --`); absent: run directly. */
      wrap: string[] | undefined;
      env: Record<string, string>;
      /** What the command is told about its sandbox: grant entries that were not mounted. */
      notes: string[];
      /** Git directories to sweep once the command has ended (`sweepPlantedPointers`). */
      gitDirs: string[];
      /** When the command was made ready (ms since the epoch): the sweep's start of time. */
      preparedAt: number;
    }
  | { ok: false; message: string };

/**
 * Gets a command ready to run under the node's caveats: inside a bubblewrap sandbox whose mounts
 * and network are those caveats minus the run's state, or — where the operator turned the sandbox
 * off — directly. Where bubblewrap is unavailable a command runs only for a node holding every
 * axis unrestricted (it could do everything anyway); any other is refused, saying why and how to
 * fix it. Protected paths that do not exist yet are created empty first, so a command cannot
 * create them (an empty SQLite journal is harmless).
 */
export function prepareCommand(options: CommandSandboxOptions): PreparedCommand {
  const { settings, caveats } = options;
  if (settings.mode === 'off') return direct(options.env);
  if (settings.mode === 'unavailable') {
    const unrestricted =
      caveats.fs_read === 'all' && caveats.fs_write === 'all' && caveats.net === 'all';
    if (unrestricted) return direct(options.env);
    return {
      ok: false,
      message:
        `the exec sandbox is unavailable (${settings.reason ?? 'bubblewrap cannot run here'}), and ` +
        'without it a command may run only for an agent whose fs_read, fs_write and net are all ' +
        `\`all\`: ${SANDBOX_HINT}`,
    };
  }
  const fs = options.fs ?? nodeFsView;
  const plan = planMounts(
    {
      caveats,
      cwd: options.cwd,
      protect: options.protect,
      pathEntries: (options.env.PATH ?? '').split(path.delimiter).filter((p) => p !== ''),
      home: options.env.HOME,
    },
    fs,
  );
  const [link] = plan.unprotectable;
  if (link !== undefined)
    return {
      ok: false,
      message:
        `the sandbox cannot keep ${link} read-only: it is a symlink in a directory the command ` +
        'may write, so the command could put a directory of its own there, from which git would ' +
        'later run hooks or config as you; make it a real directory or file, or name it in ' +
        'fs_write explicitly',
    };
  for (const placeholder of plan.placeholders) {
    try {
      makePlaceholder(placeholder);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      return {
        ok: false,
        message: `the sandbox could not protect ${placeholder.path}: it does not exist and cannot be created (${code})`,
      };
    }
  }
  const network = options.network ?? { kind: 'none' };
  const bridge = network.kind === 'proxy' ? network.bridge : undefined;
  const env: Record<string, string> = { ...options.env, ...bridge?.env, HOME: plan.home };
  for (const name of ['TMPDIR', 'TMP', 'TEMP']) if (name in env) env[name] = '/tmp';
  const notes = plan.skipped.map((entry) => `not mounted: ${entry.path} (${entry.why})`);
  if (bridge !== undefined) notes.push(...bridge.notes);
  if (network.kind === 'none' && network.why !== undefined)
    notes.push(`no network: ${network.why}`);
  const bwrap = settings.bwrap ?? systemBinary('bwrap');
  if (bwrap === undefined)
    return {
      ok: false,
      message: `the exec sandbox has no bubblewrap to run: none was given and none that can be trusted is in ${SYSTEM_BIN_DIRS.join(', ')}: ${SANDBOX_HINT}`,
    };
  return {
    ok: true,
    wrap: [
      bwrap,
      ...bwrapArgs(
        { cwd: plan.cwd, mounts: [...plan.mounts, ...(bridge?.mounts ?? [])] },
        network.kind === 'host',
      ),
      '--',
      ...(bridge?.entry ?? []),
    ],
    env,
    notes,
    gitDirs: plan.gitDirs,
    preparedAt: Date.now(),
  };
}

/** A command run as it is, outside any sandbox: nothing mounted, nothing to sweep. */
function direct(env: Record<string, string>): PreparedCommand {
  return {
    ok: true,
    wrap: undefined,
    env: { ...env },
    notes: [],
    gitDirs: [],
    preparedAt: Date.now(),
  };
}

function makePlaceholder(placeholder: { path: string; kind: 'file' | 'dir' }): void {
  if (placeholder.kind === 'dir') {
    mkdirSync(placeholder.path, { recursive: true, mode: 0o700 });
    return;
  }
  mkdirSync(path.dirname(placeholder.path), { recursive: true, mode: 0o700 });
  try {
    closeSync(openSync(placeholder.path, 'wx', 0o600));
  } catch (error) {
    // Made in the meantime (by the store itself, or another command): it exists, which is all.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}
