import { DEFAULT_LIMITS, type SpawnPayload } from '../../protocol/index.js';
import type { SubagentRunArgs } from '../../tools/index.js';
import type { Budget, CallerBudget } from '../budget/index.js';
import type { RecordEvent } from '../event-sink.js';
import type { LiveNode } from '../node/live-node.js';
import {
  admitSpawn,
  type Admitted,
  type ChokepointContext,
  type Refused,
  type SpawnLimits,
} from './spawn-chokepoint.js';
import { SpawnQueue, waitNotes } from './spawn-queue.js';
import { SpawnRate } from './spawn-rate.js';
import type { LiveNodes } from '../live-nodes.js';
import type { Tree, TreeNode } from '../tree.js';

/** What the door needs of the supervisor it belongs to. */
export interface SpawnDoorOptions {
  tree: Tree;
  limits: SpawnLimits;
  /** At most `count` spawns per `perMs` across the run. */
  rate: { count: number; perMs: number };
  budget: Budget;
  cwd: string;
  now: () => number;
  checkGrant: ChokepointContext['checkGrant'];
  hasFleet: boolean;
  /** The run's live nodes: a caller's children still running count against its breadth. */
  nodes: Pick<LiveNodes, 'runningChildren'>;
  record: RecordEvent;
  /** The caller's display changed (it is waiting, or stopped waiting). */
  changed(node: TreeNode): void;
}

/**
 * Where every spawn asks to come in: the chokepoint, with the spawn rate and the queue that makes
 * a spawn over the rate or the caller's breadth wait (bounded) instead of being refused.
 */
export class SpawnDoor {
  readonly #options: SpawnDoorOptions;
  readonly #rate: SpawnRate;
  readonly #queue: SpawnQueue;

  constructor(options: SpawnDoorOptions) {
    this.#options = options;
    this.#rate = new SpawnRate(options.rate.count, options.rate.perMs, options.now());
    this.#queue = new SpawnQueue(options.limits.maxQueued ?? DEFAULT_LIMITS.maxQueued, options.now);
  }

  /**
   * Admits a spawn, waiting for the rate or a breadth slot if it must; `start` starts the admitted
   * child in the same synchronous step, so two spawns of one caller never both pass the breadth
   * check before either has started.
   */
  async admit(
    caller: LiveNode,
    args: SubagentRunArgs,
    start: (decision: Admitted) => LiveNode,
  ): Promise<{ ok: true; child: LiveNode } | Refused> {
    const { node: at } = caller;
    const running = (): LiveNode[] => this.#options.nodes.runningChildren(caller);
    const started = await this.#queue.admit({
      admit: () => {
        const decision = admitSpawn(
          { node: at, payload: caller.payload, liveChildren: running().length },
          args,
          this.#context(),
        );
        return decision.ok ? { ok: true, child: start(decision) } : decision;
      },
      deadlineAt: callerBudget(at, caller.payload).deadlineAt,
      childEnded: () => Promise.race(running().map((child) => child.ended())),
      signal: caller.stopped.signal,
      ...waitNotes(at, (event) => {
        this.#options.record(at.id, event);
        this.#options.changed(at);
      }),
    });
    if (started.ok) {
      // The rate is for storms: a child that has ended gives its token back.
      void started.child.ended().then(() => {
        this.#rate.give(this.#options.now());
      });
      return started;
    }
    this.#options.record(at.id, { type: 'spawn.refused', reason: started.reason });
    return { ok: false, reason: started.reason };
  }

  /**
   * Admits again a child re-spawned after a crash: it was admitted the first time (breadth, total
   * and rate are not counted again); only its grant and budget share are minted again.
   */
  readmit(caller: LiveNode, args: SubagentRunArgs): Admitted | Refused {
    const context = this.#context();
    const decision = admitSpawn(
      { node: caller.node, payload: caller.payload, liveChildren: 0 },
      args,
      {
        ...context,
        limits: { ...this.#options.limits, maxBreadth: Infinity, maxTotal: Infinity },
        // A token of its own, at the context's own instant: a clock that ticked in between
        // would leave it a token short.
        rate: new SpawnRate(1, 1, context.now),
      },
    );
    if (!decision.ok)
      this.#options.record(caller.node.id, { type: 'spawn.refused', reason: decision.reason });
    return decision;
  }

  #context(): ChokepointContext {
    const { tree, limits, cwd, now, budget, checkGrant, hasFleet } = this.#options;
    return {
      tree,
      hasFleet,
      limits,
      rate: this.#rate,
      cwd,
      now: now(),
      ...(checkGrant === undefined ? {} : { checkGrant }),
      budgetFor: (who, requested) =>
        budget.share(callerBudget(who.node, who.payload), requested, now()),
    };
  }
}

function callerBudget(node: TreeNode, payload: SpawnPayload): CallerBudget {
  const deadline = payload.limits.deadline_ms;
  return {
    id: node.id,
    path: node.path,
    steps: node.steps,
    maxSteps: payload.limits.max_steps,
    deadlineAt: deadline === undefined ? undefined : node.createdAt + deadline,
  };
}
