import { ARBOR_VERSION, DEFAULT_LIMITS, type SecretScrubber } from '../protocol/index.js';
import { Budget } from './budget/index.js';
import { ChildLauncher } from './launch/child-launcher.js';
import { DEFAULT_EGRESS_LIMITS, EgressHost } from './launch/egress-host.js';
import { failResponder, HumanGates, recordedGateEvents } from './gates/human-gates.js';
import type { RecordEvent } from './event-sink.js';
import type { LiveNodes } from './live-nodes.js';
import type { NodeEnvironment } from './node/node-lifecycle.js';
import { ResumedRun } from './resume/resumed-run.js';
import { SpawnDoor } from './spawn/spawn-door.js';
import type { SupervisorOptions } from './supervisor-options.js';
import { ToolGate } from './gates/tool-gate.js';
import type { Tree, TreeNode } from './tree.js';

/** The parts a supervisor is made of: its ledger, gates, spawn door and nodes' environment. */
export interface SupervisorParts {
  budget: Budget;
  /** The records of the interrupted run the supervisor continues, if it does. */
  resumed: ResumedRun | undefined;
  humans: HumanGates;
  gate: ToolGate;
  door: SpawnDoor;
  environment: NodeEnvironment;
}

/** What the parts report to, and ask of, the supervisor they make up. */
export interface PartsHost {
  tree: Tree;
  now: () => number;
  /** The run's secret scrubber. */
  scrub: SecretScrubber;
  record: RecordEvent;
  /** The run's live nodes. */
  nodes: LiveNodes;
  /** A node's display changed. */
  changed: (node: TreeNode) => void;
}

/**
 * Builds a supervisor's parts from its options. Resuming, the recorded tree is rebuilt into
 * `host.tree` first, and the gates open at the crash are carried over.
 */
export function supervisorParts(options: SupervisorOptions, host: PartsHost): SupervisorParts {
  const { now, record, scrub } = host;
  const { maxDepth, maxBreadth, maxTotal, maxQueued, spawnRate } = DEFAULT_LIMITS;
  const budget = new Budget(options.budget ?? DEFAULT_LIMITS.budget, options.store);
  let resumed: ResumedRun | undefined;
  if (options.resume !== undefined) {
    const run = new ResumedRun(options.runId, options.store, options.resume);
    host.tree.restore(options.resume.nodes, (id) => run.steps(id));
    resumed = run;
  }
  const humans = new HumanGates({
    store: options.store,
    runId: options.runId,
    responder: options.humans ?? failResponder,
    now,
    scrub,
    events: recordedGateEvents(record),
    ...(resumed === undefined ? {} : { resumed: resumed.gates() }),
  });
  const cwd = options.cwd ?? process.cwd();
  const gate = new ToolGate({
    rules: options.rules ?? [],
    allowTrifecta: options.allowTrifecta === true,
    cwd,
    humans,
    version: ARBOR_VERSION,
    record,
    ...(options.hostTools === undefined ? {} : { hostTools: options.hostTools }),
  });
  const door = new SpawnDoor({
    tree: host.tree,
    limits: options.limits ?? { maxDepth, maxBreadth, maxTotal, maxQueued },
    rate: {
      count: options.rate?.count ?? spawnRate.count,
      perMs: options.rate?.perMs ?? spawnRate.perMs,
    },
    budget,
    cwd,
    now,
    checkGrant: (payload, who) => gate.checkTrifecta(payload) ?? options.checkGrant?.(payload, who),
    hasFleet: options.fleet !== undefined,
    nodes: host.nodes,
    record,
    changed: host.changed,
  });
  const environment: NodeEnvironment = {
    runId: options.runId,
    store: options.store,
    timing: options.timing,
    env: options.env,
    cwd: options.cwd,
    pool: options.pool,
    fleet: options.fleet,
    launcher: new ChildLauncher({
      custom: options.childCommand,
      env: options.env,
      record: (event) => {
        record(undefined, event);
      },
    }),
    gate,
    scrub,
    egress: new EgressHost({
      limits: options.egress ?? DEFAULT_EGRESS_LIMITS,
      record: (nodeId, event) => {
        record(nodeId, event);
      },
    }),
    now,
  };
  return { budget, resumed, humans, gate, door, environment };
}
