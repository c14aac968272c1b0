import type { Outcome, SpawnPayload } from '../../protocol/index.js';
import type { ChildEnd } from './child-end.js';
import type { NodeRunner } from './node-runner.js';
import { onAbort } from '../on-abort.js';
import type { ProviderName } from '../launch/providers.js';
import type { TreeNode } from '../tree.js';

/** How a node was started: the root, or a `subagent.run` mode. */
export type NodeMode = 'root' | 'sync' | 'async' | 'detached' | 'warm' | 'plan';

/**
 * A node the supervisor is running: its record in the tree, the payload it was minted with
 * (credentials included: this never leaves the supervisor's memory), and ways to wait for its end
 * or its next turn.
 */
export class LiveNode {
  readonly node: TreeNode;
  readonly payload: SpawnPayload;
  readonly mode: NodeMode;
  readonly provider: ProviderName;
  /** Fires when the node is stopped: ends what the supervisor is doing on its behalf. */
  readonly stopped = new AbortController();
  runner: NodeRunner | undefined;
  /** The child's working directory when it is not the supervisor's (a plan leaf's worktree). */
  cwd: string | undefined;
  end: ChildEnd | undefined;
  /** The payload as sent to the child: gated tools named, routed servers taken out. */
  sent: SpawnPayload | undefined;
  /** Set when the node's child never started (the root's failure is rethrown to the caller). */
  spawnError: Error | undefined;
  /** Re-spawned after a crash: its record exists, and its child continues a recorded transcript. */
  resumed = false;
  /** The outcome of each turn so far (warm sessions). */
  readonly turns: Outcome[] = [];
  /** Turns the parent has already read with `subagent.await`. */
  awaited = 0;
  readonly #ended: Promise<ChildEnd>;
  #resolveEnded!: (end: ChildEnd) => void;
  #turnWaiters: (() => void)[] = [];
  readonly #pendingInjects: string[] = [];
  #pendingClose: string | undefined;

  constructor(node: TreeNode, payload: SpawnPayload, mode: NodeMode, provider: ProviderName) {
    this.node = node;
    this.payload = payload;
    this.mode = mode;
    this.provider = provider;
    this.#ended = new Promise((resolve) => {
      this.#resolveEnded = resolve;
    });
  }

  get isLive(): boolean {
    return this.end === undefined;
  }

  /** Resolves with how the node ended. */
  ended(): Promise<ChildEnd> {
    return this.#ended;
  }

  markEnded(end: ChildEnd): void {
    if (this.end !== undefined) return;
    this.end = end;
    this.#resolveEnded(end);
    this.#wakeTurns();
  }

  /**
   * Gives a warm node a message: its runner delivers it at once when its child is ready, else as
   * soon as it is (a node just spawned, re-spawned or restarting); until the runner exists the
   * node keeps it. False once the node has ended.
   */
  inject(message: string): boolean {
    if (!this.isLive) return false;
    if (this.runner === undefined) this.#pendingInjects.push(message);
    else this.runner.send({ type: 'inject', message });
    return true;
  }

  /**
   * Closes a warm session: its runner sends the `cancel` (again to a restarted child once that has
   * caught up with its messages); until the runner exists the node keeps it. False once the node
   * has ended.
   */
  closeSession(reason: string): boolean {
    if (!this.isLive) return false;
    if (this.runner === undefined) this.#pendingClose = reason;
    else this.runner.send({ type: 'cancel', reason });
    return true;
  }

  /** What was given before the runner existed, for it to deliver (taken once). */
  takePending(): { injects: string[]; close: string | undefined } {
    const close = this.#pendingClose;
    this.#pendingClose = undefined;
    return { injects: this.#pendingInjects.splice(0), close };
  }

  /**
   * A warm sub-agent re-spawned after a crash takes up its conversation where it stood: the turns
   * that had reached the supervisor (their numbers unchanged), how many its parent had read, and
   * the messages its parent had sent that it had not yet taken in, given again.
   */
  resumeWarm(state: { turns: Outcome[]; awaited: number; unread: string[] }): void {
    this.turns.push(...state.turns);
    this.awaited = Math.min(state.awaited, state.turns.length);
    for (const message of state.unread) this.inject(message);
  }

  recordTurn(outcome: Outcome): void {
    this.turns.push(outcome);
    this.#wakeTurns();
  }

  /**
   * Waits for the node to end, or for its turn number `turn` (1-based) when it is warm, giving up
   * after `timeoutMs` or when `signal` fires. Resolves `undefined` when it gave up.
   */
  async waitFor(options: {
    turn?: number;
    timeoutMs?: number;
    signal: AbortSignal;
  }): Promise<ChildEnd | Outcome | undefined> {
    const settled = (): ChildEnd | Outcome | undefined => {
      if (options.turn !== undefined && this.turns.length >= options.turn)
        return this.turns[options.turn - 1];
      return this.end;
    };
    const deadline = options.timeoutMs === undefined ? undefined : Date.now() + options.timeoutMs;
    for (;;) {
      const done = settled();
      if (done !== undefined || options.signal.aborted) return done;
      const remaining = deadline === undefined ? undefined : deadline - Date.now();
      if (remaining !== undefined && remaining <= 0) return undefined;
      await new Promise<void>((resolve) => {
        const finish = (): void => {
          if (timer !== undefined) clearTimeout(timer);
          unsubscribe();
          resolve();
        };
        const timer = remaining === undefined ? undefined : setTimeout(finish, remaining);
        // Many waits share the caller's signal (one per sub-agent it awaits): one listener for all.
        const unsubscribe = onAbort(options.signal, finish);
        this.#turnWaiters.push(finish);
      });
    }
  }

  #wakeTurns(): void {
    const waiters = this.#turnWaiters;
    this.#turnWaiters = [];
    for (const wake of waiters) wake();
  }
}
