import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Caveats, ProtectedPath, Scope } from '../../protocol/index.js';
import { isInside, normalizePath, permitsPath, resolveReal } from '../../authority/index.js';
import { toolError, toolRefusal, type ToolOutput } from '../tool.js';
import { blockedPath, type BlockRules, type PathAxis } from './blocked-paths.js';
import { fdPathsMissing } from './fd-path.js';
import { openFinal, type OpenWant } from './open-final.js';
import { SafeWalk, type RealPathFence } from './safe-walk.js';

export type { PathAxis } from './blocked-paths.js';
export type { OpenWant } from './open-final.js';

/** A path opened for a file tool, or the message that says why it was not. */
export type GuardedOpen =
  | {
      ok: true;
      /** The caller closes it. */
      handle: FileHandle;
      /** The real path of what was opened (symlinks resolved): what the call touched. */
      real: string;
      /** The path as the model named it, made absolute and normalized: for messages. */
      shown: string;
      /** Bytes in the file when it was opened (0 for a directory). */
      size: number;
      /** Whether a `write` open created the file. */
      created: boolean;
    }
  | {
      ok: false;
      /** arbor refused (the grant, its own state) rather than the filesystem. */
      refused: boolean;
      message: string;
    };

export interface PathGuardOptions {
  caveats: Caveats;
  /** Absolute working directory; relative paths are resolved against it. */
  cwd: string;
  /** The run's own state: never written, and read only where `readable`, whatever the caveats. */
  protect?: readonly ProtectedPath[] | undefined;
}

/**
 * Decides whether a built-in file tool may touch a path and opens it, in two passes. First
 * lexically: the path is resolved against cwd, normalized and compared whole component by whole
 * component with the `fs_read` or `fs_write` scope (a plan leaf's write lane is already folded
 * into `fs_write`), so `..` and a sibling such as `/ws-secret` are refused before the filesystem
 * is touched. Then physically, with no window between the check and the use: the path is walked
 * from `/` through directory handles that never follow a symlink (`safe-walk.ts`), links are
 * resolved by walking their targets, and the real path of what is about to be opened must pass
 * the same checks against the scope entries and the protected paths. The tool gets the handle,
 * never a path to open again.
 */
export class PathGuard {
  readonly #caveats: Caveats;
  readonly #cwd: string;
  readonly #protect: readonly ProtectedPath[];
  /** The protected paths through their symlinks, resolved on first use. */
  #realProtect: Promise<ProtectedPath[]> | undefined;

  constructor(options: PathGuardOptions) {
    this.#caveats = options.caveats;
    this.#cwd = path.resolve(options.cwd);
    this.#protect = options.protect ?? [];
  }

  get cwd(): string {
    return this.#cwd;
  }

  /** Opens `p` for `want` (`dir` and `read` under `fs_read`, `edit` and `write` under `fs_write`). */
  async open(
    tool: string,
    want: OpenWant,
    p: string,
    { signal }: { signal?: AbortSignal } = {},
  ): Promise<GuardedOpen> {
    const axis: PathAxis = want === 'read' || want === 'dir' ? 'fs_read' : 'fs_write';
    if (p.includes('\0')) {
      return refused(`\`${tool}\` refused: the path contains a NUL byte`);
    }
    const shown = normalizePath(p, { cwd: this.#cwd });
    const refuse = (why: string): GuardedOpen => refused(`\`${tool}\` refused: ${shown} ${why}`);
    const scope = this.#caveats[axis];
    if (!permitsPath(scope, shown, { cwd: this.#cwd })) {
      return refuse(`is outside ${axis} (allowed: ${this.#describe(scope)})`);
    }
    const lexicalBlock = blockedPath(axis, shown, this.#rules(this.#protect));
    if (lexicalBlock !== undefined) return refuse(lexicalBlock);
    const missing = await fdPathsMissing();
    if (missing !== undefined) return refused(`\`${tool}\` refused: ${missing}`);
    const fence = await this.fence(axis, signal === undefined ? {} : { signal });
    const walk = await SafeWalk.start(shown);
    try {
      const opened = await openFinal(walk, want, fence, signal === undefined ? {} : { signal });
      if (opened.ok) return { ...opened, shown };
      if ('refusal' in opened) return refuse(opened.refusal);
      return { ok: false, refused: false, message: `\`${tool}\`: ${shown} ${opened.why}.` };
    } finally {
      await walk.close();
    }
  }

  /**
   * The checks a real path must pass under `axis`. Also for paths found under a directory this
   * guard opened (`fs.glob`'s matches): every entry below a permitted directory is inside the
   * same scope entries, but protected paths and `.arbor` may lie under it.
   */
  async fence(axis: PathAxis, { signal }: { signal?: AbortSignal } = {}): Promise<RealPathFence> {
    return new ScopeFence(
      axis,
      this.#caveats[axis],
      this.#rules(await this.#realProtected(signal)),
      this.#describe(this.#caveats[axis]),
    );
  }

  #rules(protect: readonly ProtectedPath[]): BlockRules {
    return { protect, writeScope: this.#caveats.fs_write, cwd: this.#cwd };
  }

  #realProtected(signal: AbortSignal | undefined): Promise<ProtectedPath[]> {
    this.#realProtect ??= Promise.all(
      this.#protect.map(async (entry) => ({
        ...entry,
        path: (await resolveReal(entry.path, signal === undefined ? {} : { signal })) ?? entry.path,
      })),
    );
    return this.#realProtect;
  }

  #describe(scope: Scope): string {
    if (scope === 'all') return 'everything';
    if (scope.length === 0) return 'nothing';
    return scope.map((entry) => normalizePath(entry, { cwd: this.#cwd })).join(', ');
  }
}

/** The physical pass: a real path against the scope entries, the protected paths and the rules. */
class ScopeFence implements RealPathFence {
  readonly #axis: PathAxis;
  readonly #entries: readonly string[] | 'all';
  readonly #rules: BlockRules;
  readonly #allowed: string;

  constructor(axis: PathAxis, scope: Scope, rules: BlockRules, allowed: string) {
    this.#axis = axis;
    this.#entries =
      scope === 'all' ? 'all' : scope.map((entry) => normalizePath(entry, { cwd: rules.cwd }));
    this.#rules = rules;
    this.#allowed = allowed;
  }

  /**
   * Scope entries are taken as written, never followed through symlinks: the run's grant is made
   * of real paths when the run starts, so an entry that resolves elsewhere now is a link someone
   * planted (`ln -s ../outside out`, then a child asked for `out`), and following it would hand
   * out what no ancestor held.
   */
  refusal(real: string): string | undefined {
    const inside = this.#entries === 'all' || this.#entries.some((entry) => isInside(entry, real));
    if (!inside) {
      return `resolves through a symlink to ${real}, outside ${this.#axis} (allowed: ${this.#allowed})`;
    }
    const block = blockedPath(this.#axis, real, this.#rules);
    return block === undefined
      ? undefined
      : `resolves through a symlink to ${real}, which ${block}`;
  }
}

/** A tool's answer when `open` did not open: arbor's refusal, or the filesystem's error. */
export function openFailure(failed: Extract<GuardedOpen, { ok: false }>): ToolOutput {
  return failed.refused ? toolRefusal(failed.message) : toolError(failed.message);
}

function refused(message: string): GuardedOpen {
  return { ok: false, refused: true, message };
}
