import type { ReplayPayload, TrajectoryEvent } from '../protocol/index.js';
import type { ChildEnd } from './node/child-end.js';

/** A recorded node a node of a replay stands for: its id and path, and what it replays. */
export interface ReplayedNode {
  id: string;
  path: string;
  replay: ReplayPayload;
  /**
   * Set when the node is not run again but stands with its recorded end: a node on an A2A peer
   * under recorded tool results (the peer is not contacted).
   */
  recordedEnd?: ChildEnd;
  /** What the standing node had taken in, as it last reported it (its answer carries the taint). */
  trajectory?: TrajectoryEvent;
}

/**
 * The recorded run a replay (`arbor replay`) serves its nodes' answers from (see `src/replay/`).
 * The supervisor mints each node with the id and path of the recorded node it stands for, so its
 * children's handles and paths are the recorded ones, and puts that node's records in its payload.
 */
export interface ReplaySource {
  /** The recorded root. */
  root(): ReplayedNode;
  /**
   * The recorded child of `parentId` (a recorded id) that a spawn with this instruction stands
   * for: the first of its recorded children with that instruction not yet claimed, in spawn order.
   * Undefined when there is none (a spawn after a divergence): the child runs live.
   */
  claim(parentId: string, instruction: string): ReplayedNode | undefined;
  /** Every recorded node's id and path: new nodes of the replay are minted past them. */
  readonly recorded: readonly { id: string; path: string }[];
}
