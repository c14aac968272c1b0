import type { ProtectedPath, TranscriptMessage } from '../../protocol/index.js';
import type { Reattach, ResumedRun } from '../resume/resumed-run.js';
import { resumeTemplate } from '../resume/resumed-run.js';
import type { Admitted } from './spawn-chokepoint.js';
import type { TreeNode } from '../tree.js';

/** Where a child is placed beyond what the chokepoint decided: a plan leaf's mode, cwd and paths. */
export interface ChildPlacement {
  mode?: 'plan';
  cwd?: string;
  protect?: readonly ProtectedPath[];
}

/**
 * What a child admitted through the chokepoint is minted from: the admitted payload without the
 * caller's own transcript, the placement's protected paths added, the caller's conversation when
 * the provider forks it, and, for a child re-spawned after a crash, its recorded transcript.
 */
export function childTemplate(
  decision: Admitted,
  node: TreeNode,
  history: TranscriptMessage[],
  placement: ChildPlacement,
  reattach?: { run: ResumedRun | undefined; child: Extract<Reattach, { kind: 'respawn' }> },
): Admitted['payload'] {
  // Only a fork starts from the caller's conversation; every other child starts fresh (and a
  // resumed caller's transcript is its own, never its child's).
  const { resume: _callerTranscript, ...minted } = decision.payload;
  const payload = {
    ...minted,
    protected_paths: [...minted.protected_paths, ...(placement.protect ?? [])],
  };
  const forked = decision.provider.capabilities.inheritsParentContext
    ? { ...payload, history }
    : payload;
  if (reattach === undefined) return forked;
  const { run, child } = reattach;
  return resumeTemplate(forked, node, child.transcript, run?.answeredTurn(child.record.id));
}
