import type { ProtectedPath, Scope } from '../../protocol/index.js';
import { STATE_DIR, isInside, protectionOf } from '../../authority/index.js';
import { gitLaunchPath } from './git-launch-paths.js';

/** The caveat axis a file operation needs: reading or writing. */
export type PathAxis = 'fs_read' | 'fs_write';

/** Process memory and environments (API keys among them) live here: no file tool goes in. */
const PROC = '/proc';

export interface BlockRules {
  /** The run's own state: never written, and read only where `readable`. */
  protect: readonly ProtectedPath[];
  /** The node's `fs_write`: only an entry inside a `.git` opens that git directory to writes. */
  writeScope: Scope;
  cwd: string;
}

/**
 * Why no caveat can allow `axis` on the absolute, normalized `target`, if so — in the order a
 * reader is best told: `/proc`, the run's own state, any `.arbor` directory (another project's
 * arbor state under a grant: its stores, its serve token), and for writes the parts of a git
 * directory git runs things from. The answer starts with a verb (`is …`) so it reads after the
 * path or after "which".
 */
export function blockedPath(axis: PathAxis, target: string, rules: BlockRules): string | undefined {
  if (isInside(PROC, target)) {
    return 'is under /proc, which the file tools never touch (process memory and environments live there)';
  }
  const access = axis === 'fs_write' ? 'write' : 'read';
  const entry = protectionOf(target, access, rules.protect);
  if (entry !== undefined) {
    return `is part of this run's own state (${entry.path}), which no agent may ${access}`;
  }
  const parts = target.split('/');
  const state = parts.indexOf(STATE_DIR);
  if (state !== -1) {
    const where = state === parts.length - 1 ? 'is' : 'is inside';
    return `${where} an \`${STATE_DIR}\` directory (arbor's own state), which no agent may read or write`;
  }
  return axis === 'fs_write' ? gitLaunchPath(target, rules.writeScope, rules.cwd) : undefined;
}
