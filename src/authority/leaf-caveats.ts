import path from 'node:path';
import type { Caveats } from '../protocol/index.js';
import { policyToCaveats, type CaveatPolicy } from './caveat-policy.js';
import { meetGrant } from './meet-grant.js';
import { meetPathScopes, type PathContext } from './path-scope.js';

/**
 * The authority a plan leaf is dispatched with: the parent's grant met with the subtask's policy
 * (default-deny, `meetGrant`), then its write lane folded into `fs_write`. The lane is applied
 * here and nowhere else, so every file tool and the sandbox enforce worktree ∩ fs_write ∩ lane
 * through the one caveat they already check. `test/authority/leaf-caveats.test.ts` checks as a
 * property that this never amplifies the parent's grant.
 */
export function leafCaveats(
  parentGrant: Caveats,
  subtask: { caveat_policy?: CaveatPolicy | undefined; context: readonly string[] },
  context: PathContext,
): Caveats {
  const met = meetGrant(parentGrant, policyToCaveats(subtask.caveat_policy), context);
  return withWriteLane(met, subtask.context, context);
}

/**
 * Folds a leaf's write lane into its `fs_write`. Lane entries are relative to the leaf's working
 * directory; `./` and a trailing `/` make no difference. An empty lane, or one with a degenerate
 * entry (`""`, `.`, `./`), fences nothing: the lane is a convenience that can only narrow, and bad
 * lane data must never brick a leaf. An entry that leaves the working directory (absolute, `..`)
 * grants nothing.
 */
export function withWriteLane(
  caveats: Caveats,
  lane: readonly string[],
  context: PathContext,
): Caveats {
  if (lane.length === 0) return caveats;
  const entries = lane.map((entry) => path.posix.normalize(entry.trim()).replace(/\/+$/, ''));
  if (entries.some((entry) => entry === '' || entry === '.')) return caveats;
  const inside = entries.filter(
    (entry) => !path.posix.isAbsolute(entry) && entry !== '..' && !entry.startsWith('../'),
  );
  return { ...caveats, fs_write: meetPathScopes(caveats.fs_write, inside, context) };
}
