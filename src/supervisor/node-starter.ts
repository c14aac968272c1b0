import {
  payloadSecrets,
  type RunEventBody,
  type SecretScrubber,
  type SpawnPayload,
  type TranscriptMessage,
} from '../protocol/index.js';
import type { NodeRecord, NodeStatus } from '../store/store-port.js';
import type { SubagentRunArgs } from '../tools/index.js';
import type { Budget } from './budget/index.js';
import type { EventSink } from './event-sink.js';
import { placeNode, type ProviderName } from './launch/providers.js';
import type { LiveNodes } from './live-nodes.js';
import { LiveNode, type NodeMode } from './node/live-node.js';
import { NodeLifecycle, type NodeEnvironment } from './node/node-lifecycle.js';
import { nodeRecord } from './node/node-record.js';
import type { ChildEnd } from './node/child-end.js';
import type { NodeReports } from './node-reports.js';
import { adoptReturned, type ResumeHost, type Respawn } from './resume/resume-adoption.js';
import type { ResumedRun } from './resume/resumed-run.js';
import { childTemplate, type ChildPlacement } from './spawn/child-template.js';
import { mintPayload } from './spawn/mint-payload.js';
import type { Admitted, Refused } from './spawn/spawn-chokepoint.js';
import type { SpawnDoor } from './spawn/spawn-door.js';
import type { SupervisorOptions } from './supervisor-options.js';
import type { Tree, TreeNode } from './tree.js';

/** What starting a node takes from the run. */
export interface NodeStarterParts {
  options: SupervisorOptions;
  tree: Tree;
  nodes: LiveNodes;
  door: SpawnDoor;
  budget: Budget;
  events: EventSink;
  reports: NodeReports;
  environment: NodeEnvironment;
  scrub: SecretScrubber;
  /** The interrupted run this supervisor continues, if it does. */
  resumed: ResumedRun | undefined;
  now(): number;
}

/**
 * Starts the nodes of a run once they are admitted: mints the node in the tree (or takes up its
 * recorded one), opens its budget, mints its payload, places it with its provider and starts its
 * lifecycle. Taking up an interrupted run's recorded children goes through here too, so it is the
 * `ResumeHost` the resume code calls.
 */
export class NodeStarter implements ResumeHost {
  readonly #parts: NodeStarterParts;

  constructor(parts: NodeStarterParts) {
    this.#parts = parts;
  }

  get tree(): Tree {
    return this.#parts.tree;
  }

  /** Mints an admitted child of `caller` (or takes up its recorded node) and starts it. */
  startChild(
    caller: LiveNode,
    decision: Admitted,
    history: TranscriptMessage[],
    placement: ChildPlacement,
    reattach?: Respawn,
  ): LiveNode {
    const { tree, scrub, budget, resumed, options } = this.#parts;
    const instruction = scrub.text(decision.payload.instruction);
    // In a replay, the recorded child this spawn stands for lends it its id, path and records.
    const replayed =
      reattach === undefined ? options.replay?.claim(caller.node.id, instruction) : undefined;
    const node =
      reattach === undefined
        ? tree.mintChild(caller.node.id, instruction, this.#parts.now(), replayed)
        : tree.require(reattach.record.id);
    const template = childTemplate(
      decision,
      node,
      history,
      placement,
      reattach === undefined ? undefined : { run: resumed, child: reattach },
    );
    budget.open(node.id, caller.node.id, decision.grant);
    if (reattach !== undefined) {
      budget.ledger.record(node.id, reattach.record.usage);
      resumed?.recordGrant(reattach.record, template.caveats);
    }
    const payload = mintPayload(options.runId, node, template);
    if (replayed?.recordedEnd !== undefined) {
      if (replayed.trajectory !== undefined) node.trajectory = replayed.trajectory;
      return this.#standRecorded(
        node,
        payload,
        placement.mode ?? decision.mode,
        decision,
        replayed.recordedEnd,
      );
    }
    return this.start(
      node,
      replayed === undefined ? payload : { ...payload, replay: replayed.replay },
      placement.mode ?? decision.mode,
      decision.provider.name,
      placement.cwd,
      reattach === undefined ? undefined : resumed,
    );
  }

  /** Places a minted node with its provider and starts its lifecycle. */
  start(
    node: TreeNode,
    payload: SpawnPayload,
    mode: NodeMode,
    provider: ProviderName,
    cwd?: string,
    resumed?: ResumedRun,
  ): LiveNode {
    const { options, scrub, nodes, environment, reports } = this.#parts;
    const live = new LiveNode(node, payload, mode, placeNode(provider, cwd, options));
    // Whatever the node's child may echo of its credentials is scrubbed from now on.
    scrub.add(payloadSecrets(payload));
    live.cwd = cwd;
    live.resumed = resumed !== undefined;
    nodes.started(live);
    new NodeLifecycle(environment, reports, live).start();
    if (resumed !== undefined) adoptReturned(this, live, resumed);
    return live;
  }

  /**
   * A replayed node that is not run again: recorded in this run with its recorded end, known to
   * its parent's tools, its result the recorded one (`node.reused`). Nothing is started.
   */
  #standRecorded(
    node: TreeNode,
    payload: SpawnPayload,
    mode: NodeMode,
    decision: Admitted,
    end: ChildEnd,
  ): LiveNode {
    const { options, nodes, scrub, events } = this.#parts;
    const now = this.#parts.now();
    const status = end.outcome.status;
    options.store.createNode({
      ...nodeRecord(options.runId, node, payload, decision.provider.name, status, scrub),
      outcome: end.outcome,
      startedAt: now,
      endedAt: now,
    });
    node.status = status;
    node.endedAt = now;
    const live = new LiveNode(node, payload, mode, decision.provider.name);
    live.markEnded(end);
    nodes.register(live);
    events.record(node.id, { type: 'node.reused', status });
    options.onEvent?.({ type: 'node', node });
    return live;
  }

  readmit(parent: LiveNode, args: SubagentRunArgs): Admitted | Refused {
    return this.#parts.door.readmit(parent, args);
  }

  respawn(parent: LiveNode, decision: Admitted, reattach: Respawn): LiveNode {
    return this.startChild(parent, decision, [], {}, reattach);
  }

  register(child: LiveNode): void {
    this.#parts.nodes.register(child);
  }

  end(record: NodeRecord, status: NodeStatus, reason: string): void {
    const { options } = this.#parts;
    options.store.updateNode(options.runId, record.id, {
      status,
      endedAt: this.#parts.now(),
      error: reason,
    });
  }

  setStatus(node: TreeNode, status: NodeStatus): void {
    this.#parts.reports.setStatus(node, status);
  }

  record(nodeId: string | undefined, event: RunEventBody): void {
    this.#parts.events.record(nodeId, event);
  }
}
