import type { NodeRecord } from '../../store/store-port.js';

/** What a supervisor resuming an interrupted run starts from: the run's records. */
export interface ResumeState {
  nodes: readonly NodeRecord[];
  /**
   * Repeated spawns are never matched to recorded children: each starts a new child, and the
   * recorded ones that were running end as left over (a plan under worktrees, whose leaves'
   * edits were in worktrees that are gone).
   */
  startOver?: boolean;
  /**
   * Instructions of children that ended but must not stand, each matched to one such record of
   * the root's children, which is left out of the matching: a plan's failed and cancelled leaves,
   * which a resume runs again.
   */
  retry?: readonly string[];
}
