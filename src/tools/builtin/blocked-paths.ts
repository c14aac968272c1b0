import type { ProtectedPath, Scope } from '../../protocol/index.js';
import { isInside, protectionOf } from '../../authority/index.js';

/** The caveat axis a file operation needs: reading or writing. */
export type PathAxis = 'fs_read' | 'fs_write';

/** Process memory and environments (API keys among them) live here: no file tool goes in. */
const PROC = '/proc';

export interface BlockRules {
  /** The run's own state: never written, and read only where `readable`. */
  protect: readonly ProtectedPath[];
  /** The node's `fs_write`. */
  writeScope: Scope;
  cwd: string;
}

/**
 * Why no caveat can allow `axis` on the absolute, normalized `target`, if so — in the order a
 * reader is best told: `/proc`, then the run's own state. The answer starts with a verb (`is …`) so it reads after the
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
  return undefined;
}
