import path from 'node:path';
import type { Caveats } from '../protocol/index.js';
import { meetCaveats } from './caveats-lattice.js';
import { policyToCaveats, type CaveatPolicy } from './caveat-policy.js';
import { meetPathScopes, type PathContext } from './path-scope.js';

/** What a leaf runs under: its caveats and its write lane. */
export interface LeafAuthority {
  /** `parent ⊓ policy`: never more than the parent grants, nothing the policy leaves out. */
  caveats: Caveats;
  /**
   * The leaf's `context`: the files and directories it may write, on top of `caveats.fs_write`.
   * Empty means unfenced.
   */
  writeLane: string[];
}

/**
 * The authority a leaf is dispatched with: the parent's grant met with the subtask's policy
 * (default-deny), plus the subtask's write lane.
 *
 * `exec`, `net` and `max_calls` meet exactly as in the lattice. `fs_read` and `fs_write` meet as
 * path prefixes, because the two sides speak differently: a run grants absolute directories
 * (`/work/repo`) and a policy names paths relative to the working directory (`src/`); the exact
 * meet of those would be empty. The path meet keeps exactly the paths both sides allow, so it
 * never amplifies either (`test/authority/leaf-caveats.test.ts` checks this as a property).
 *
 * The lane composes by meet only, and is applied by the built-in file tools rather than folded
 * into `fs_write`: a write to `p` is allowed when `p` is inside the worktree (`resolveInside`),
 * `permitsPath(caveats.fs_write, p)` holds, and `inLane(writeLane, p relative to the worktree)`
 * holds — worktree ∩ fs_write ∩ lane. An empty or degenerate lane fences nothing, so a lane can
 * only ever take authority away.
 */
export function leafCaveats(
  parentGrant: Caveats,
  subtask: { caveat_policy?: CaveatPolicy | undefined; context: readonly string[] },
  context: PathContext,
): LeafAuthority {
  const policy = policyToCaveats(subtask.caveat_policy);
  const exact = meetCaveats(parentGrant, policy);
  return {
    caveats: {
      ...exact,
      fs_read: meetPathScopes(parentGrant.fs_read, policy.fs_read, context),
      fs_write: meetPathScopes(parentGrant.fs_write, policy.fs_write, context),
    },
    writeLane: [...subtask.context],
  };
}

/**
 * Folds a leaf's write lane into its `fs_write`, so every file tool in the leaf's child enforces
 * worktree ∩ fs_write ∩ lane through the one caveat it already checks. Lane entries are relative
 * to the leaf's working directory; `./` and a trailing `/` make no difference. An empty lane, or
 * one with a degenerate entry (`""`, `.`, `./`), fences nothing (as `inLane` reads it); an entry
 * that leaves the working directory (absolute, `..`) grants nothing.
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
