import path from 'node:path';
import type { Caveats, ProtectedPath, Scope } from '../../protocol/index.js';
import {
  isInside,
  normalizePath,
  permitsPath,
  protectionOf,
  resolveReal,
} from '../../authority/index.js';

/** The caveat axis a file operation needs: reading or writing. */
export type PathAxis = 'fs_read' | 'fs_write';

export type PathCheck =
  | {
      ok: true;
      /** The real path (symlinks resolved) to open: the one that was checked. */
      real: string;
      /** The path as the model named it, made absolute and normalized: for messages. */
      shown: string;
    }
  | { ok: false; message: string };

export interface PathGuardOptions {
  caveats: Caveats;
  /** Absolute working directory; relative paths are resolved against it. */
  cwd: string;
  /** The run's own state: never written, and read only where `readable`, whatever the caveats. */
  protect?: readonly ProtectedPath[] | undefined;
}

/** Process memory and environments (API keys among them) live here: no file tool goes in. */
const PROC = '/proc';

/**
 * Decides whether a built-in file tool may touch a path, in two passes. First lexically: the path
 * is resolved against cwd, normalized and compared whole component by whole component with the
 * `fs_read` or `fs_write` scope (a plan leaf's write lane is already folded into
 * `fs_write`), so `..` and a sibling such as `/ws-secret` are refused before the filesystem is touched). Then physically: the path is
 * resolved through every symlink (a file being created through its nearest existing parent) and
 * the real path must pass the same checks against the real paths of the scope entries and cwd,
 * so a symlink inside an allowed directory cannot lead outside it. Tools open the real path.
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

  async check(
    tool: string,
    axis: PathAxis,
    p: string,
    { signal }: { signal?: AbortSignal } = {},
  ): Promise<PathCheck> {
    if (p.includes('\0')) {
      return { ok: false, message: `\`${tool}\` refused: the path contains a NUL byte` };
    }
    const scope = this.#caveats[axis];
    const shown = normalizePath(p, { cwd: this.#cwd });
    const refuse = (why: string): PathCheck => ({
      ok: false,
      message: `\`${tool}\` refused: ${shown} ${why}`,
    });
    if (!permitsPath(scope, shown, { cwd: this.#cwd })) {
      return refuse(`is outside ${axis} (allowed: ${this.#describe(scope)})`);
    }
    const lexicalBlock = this.#blocked(axis, shown, this.#protect);
    if (lexicalBlock !== undefined) return refuse(lexicalBlock);
    const real = await resolveReal(shown, signal === undefined ? {} : { signal });
    if (real === undefined) return refuse('is part of a symlink loop');
    if (!this.#permitsReal(scope, real)) {
      return refuse(
        `resolves through a symlink to ${real}, outside ${axis} (allowed: ${this.#describe(scope)})`,
      );
    }
    const realBlock = this.#blocked(axis, real, await this.#realProtected(signal));
    if (realBlock !== undefined)
      return refuse(`resolves through a symlink to ${real}, which ${realBlock}`);
    return { ok: true, real, shown };
  }

  /** Why no caveat can allow `axis` on `target`, if so: `/proc`, or the run's own state. */
  #blocked(axis: PathAxis, target: string, protect: readonly ProtectedPath[]): string | undefined {
    if (isInside(PROC, target)) {
      return 'is under /proc, which the file tools never touch (process memory and environments live there)';
    }
    const access = axis === 'fs_write' ? 'write' : 'read';
    const entry = protectionOf(target, access, protect);
    if (entry === undefined) return undefined;
    return `is part of this run's own state (${entry.path}), which no agent may ${access}`;
  }

  #realProtected(signal: AbortSignal | undefined): Promise<ProtectedPath[]> {
    this.#realProtect ??= Promise.all(
      this.#protect.map(async (entry) => ({
        ...entry,
        path: (await resolveReal(entry.path, opts(signal))) ?? entry.path,
      })),
    );
    return this.#realProtect;
  }

  /**
   * Is the real path inside some scope entry, taken as written? Entries are never followed
   * through symlinks: the run's grant is made of real paths when the run starts, so an entry that
   * resolves elsewhere now is a link someone planted (`ln -s ../outside out`, then a child asked
   * for `out`), and following it would hand out what no ancestor held.
   */
  #permitsReal(scope: Scope, real: string): boolean {
    if (scope === 'all') return true;
    return scope.some((entry) => isInside(normalizePath(entry, { cwd: this.#cwd }), real));
  }

  #describe(scope: Scope): string {
    if (scope === 'all') return 'everything';
    if (scope.length === 0) return 'nothing';
    return scope.map((entry) => normalizePath(entry, { cwd: this.#cwd })).join(', ');
  }
}

function opts(signal: AbortSignal | undefined): { signal?: AbortSignal } {
  return signal === undefined ? {} : { signal };
}
