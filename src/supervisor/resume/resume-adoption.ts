import type { SubagentRunArgs } from '../../tools/index.js';
import type { RecordEvent } from '../event-sink.js';
import type { LiveNode, NodeMode } from '../node/live-node.js';
import { endedChild, leftOver, RUNS_ON, type Reattach, type ResumedRun } from './resumed-run.js';
import type { Admitted, Refused } from '../spawn/spawn-chokepoint.js';
import type { NodeRecord, NodeStatus } from '../../store/store-port.js';
import type { Tree, TreeNode } from '../tree.js';

type Ended = Extract<Reattach, { kind: 'ended' }>;
export type Respawn = Extract<Reattach, { kind: 'respawn' }>;

/** What taking up an interrupted run's recorded children needs from the supervisor. */
export interface ResumeHost {
  readonly tree: Tree;
  /** Admits a recorded child again (its grant minted anew; no rate, breadth or total). */
  readmit(parent: LiveNode, args: SubagentRunArgs): Admitted | Refused;
  /** Starts a re-admitted child from its recorded transcript, under its own id. */
  respawn(parent: LiveNode, decision: Admitted, reattach: Respawn): LiveNode;
  /** Makes a node known to its parent's `subagent.*` tools. */
  register(child: LiveNode): void;
  /** Records a node's status in the store with its end, and shows it. */
  end(record: NodeRecord, status: NodeStatus, reason: string): void;
  setStatus(node: TreeNode, status: NodeStatus): void;
  record: RecordEvent;
}

/**
 * A child that had finished before the crash, standing with its recorded result: known to its
 * parent's tools again, and not run again (`node.reused`).
 */
export function standEnded(host: ResumeHost, ended: Ended, mode: NodeMode): LiveNode {
  const child = endedChild(host.tree.require(ended.record.id), ended, mode);
  host.register(child);
  host.record(child.node.id, { type: 'node.reused', status: ended.record.status });
  return child;
}

/**
 * A resumed node's children whose spawn had returned before the crash: it may await them, and
 * will not spawn them again. Those that had ended stand with their results; `async`, `detached`
 * and `warm` ones that were running are re-spawned on their own, from their transcripts (a warm
 * one takes up its conversation where it stood). One that cannot be re-admitted ends `cancelled`
 * with the reason, which its parent reads.
 */
export function adoptReturned(host: ResumeHost, parent: LiveNode, resumed: ResumedRun): void {
  for (const { args, reattach } of resumed.returned(parent.node.id)) {
    const mode = args.mode ?? 'sync';
    if (reattach.kind === 'ended') {
      standEnded(host, reattach, mode);
      continue;
    }
    const decision = RUNS_ON.has(mode) ? host.readmit(parent, args) : undefined;
    if (decision?.ok === true) {
      const child = host.respawn(parent, decision, reattach);
      if (mode === 'warm') child.resumeWarm(resumed.warmState(parent.node.id, child.node.id));
      continue;
    }
    const reason =
      decision === undefined
        ? `interrupted; a ${mode} sub-agent is not resumed`
        : `interrupted, and not re-spawned: ${decision.reason}`;
    settleLeftover(host, reattach.record, reason);
    host.register(
      endedChild(host.tree.require(reattach.record.id), leftOver(reattach.record, reason), mode),
    );
  }
}

/** Recorded nodes that were running and that no resumed parent asked for again end here. */
export function settleUnclaimed(host: ResumeHost, resumed: ResumedRun | undefined): void {
  for (const record of resumed?.unclaimedActive() ?? [])
    settleLeftover(host, record, 'interrupted, and not asked for again when its parent resumed');
}

/** Ends a recorded node that was running and is not run again: `cancelled`, with the reason. */
function settleLeftover(host: ResumeHost, record: NodeRecord, reason: string): void {
  host.end(record, 'cancelled', reason);
  const node = host.tree.get(record.id);
  if (node !== undefined) host.setStatus(node, 'cancelled');
  host.record(record.id, { type: 'node.end', status: 'cancelled', via: 'resume', reason });
}
