import type { Usage } from '../../protocol/index.js';
import { addUsage } from '../../loop/index.js';

/** What a node may spend, itself and its subtree together. Absent means no limit of its own. */
export interface Grant {
  tokens?: number;
  usd?: number;
}

/** Which limit refused a call. */
type SpentLimit = 'tokens' | 'usd';

export type LedgerAdmission =
  | { ok: true }
  | { ok: false; waitMs: number; reason: string }
  | { ok: false; limit: SpentLimit; reason: string; nodeId: string };

interface Account {
  id: string;
  parent: Account | undefined;
  grant: Grant;
  own: Usage;
  /** Spent by the node and every descendant. */
  subtreeTokens: number;
  subtreeUsd: number;
  /** The estimate of the node's own model call in flight (a node makes one at a time). */
  inFlight: number;
  /** Estimates of calls in flight in the subtree. */
  subtreeInFlight: number;
}

/** How long a call that would overdraw a budget other calls are still using waits before asking again. */
export const OVERDRAW_WAIT_MS = 200;

/**
 * The budget ledger: what each node was granted and what its subtree has spent. Usage is folded
 * in as it arrives, into the node and every ancestor, so a subtree's spend is always the sum of
 * its nodes. Before each model call a node asks for admission, checked against its own grant and
 * every ancestor's, so no subtree can outspend what it was given.
 *
 * The bound: a call is admitted only while every grant above it has something left, counting the
 * estimates of calls already in flight. So spend can pass a grant only by what the calls in
 * flight when it was reached actually use (`docs/budget.md` states it exactly).
 */
export class Ledger {
  readonly #accounts = new Map<string, Account>();

  /** Opens a node's account under its parent, with its grant. */
  open(nodeId: string, parentId: string | undefined, grant: Grant): void {
    const parent = parentId === undefined ? undefined : this.#accounts.get(parentId);
    this.#accounts.set(nodeId, {
      id: nodeId,
      parent,
      grant,
      own: { input_tokens: 0, output_tokens: 0 },
      subtreeTokens: 0,
      subtreeUsd: 0,
      inFlight: 0,
      subtreeInFlight: 0,
    });
  }

  /**
   * What a node may still spend: the least left of its own grant and every ancestor's (in-flight
   * estimates not counted). `undefined` on an axis means no limit anywhere above.
   */
  remaining(nodeId: string): Grant {
    let tokens: number | undefined;
    let usd: number | undefined;
    for (const account of this.#chain(nodeId)) {
      if (account.grant.tokens !== undefined)
        tokens = Math.min(tokens ?? Infinity, account.grant.tokens - account.subtreeTokens);
      if (account.grant.usd !== undefined)
        usd = Math.min(usd ?? Infinity, account.grant.usd - account.subtreeUsd);
    }
    return {
      ...(tokens === undefined ? {} : { tokens: Math.max(0, tokens) }),
      ...(usd === undefined ? {} : { usd: Math.max(0, usd) }),
    };
  }

  /**
   * Admission of one model call estimated at `estimate` tokens. Refused when a grant on the chain
   * is spent; asked to wait when only calls still in flight stand in the way; admitted otherwise,
   * with the estimate held until the call's usage arrives.
   */
  admit(nodeId: string, estimate: number): LedgerAdmission {
    const self = this.#accounts.get(nodeId);
    if (self === undefined) return { ok: true };
    for (const account of this.#chain(nodeId)) {
      const { tokens, usd } = account.grant;
      const whose = account.id === nodeId ? 'its grant' : `the grant of ${account.id}`;
      if (tokens !== undefined && account.subtreeTokens >= tokens) {
        return {
          ok: false,
          limit: 'tokens',
          nodeId: account.id,
          reason: `token budget spent: ${account.subtreeTokens} of ${tokens} tokens used (${whose})`,
        };
      }
      if (usd !== undefined && account.subtreeUsd >= usd) {
        return {
          ok: false,
          limit: 'usd',
          nodeId: account.id,
          reason: `money budget spent: $${account.subtreeUsd.toFixed(4)} of $${usd.toFixed(4)} used (${whose})`,
        };
      }
      if (
        tokens !== undefined &&
        account.subtreeInFlight > 0 &&
        account.subtreeTokens + account.subtreeInFlight + estimate > tokens
      ) {
        return {
          ok: false,
          waitMs: OVERDRAW_WAIT_MS,
          reason: `waiting for calls in flight under ${account.id} before spending more of its ${tokens} tokens`,
        };
      }
    }
    this.#hold(self, estimate);
    return { ok: true };
  }

  /** Folds one call's usage into the node and every ancestor, and releases its estimate. */
  record(nodeId: string, usage: Usage): void {
    const self = this.#accounts.get(nodeId);
    if (self === undefined) return;
    this.#hold(self, 0);
    // The cache and reasoning splits are kept apart, as `addUsage` sums them.
    self.own = addUsage(self.own, usage);
    const tokens = usage.input_tokens + usage.output_tokens;
    for (const account of this.#chain(nodeId)) {
      account.subtreeTokens += tokens;
      account.subtreeUsd += usage.cost_usd ?? 0;
    }
  }

  /** A node ended: whatever it held in flight is released. */
  close(nodeId: string): void {
    const self = this.#accounts.get(nodeId);
    if (self !== undefined) this.#hold(self, 0);
  }

  /** Has any grant on the node's chain been spent? */
  isSpent(nodeId: string): boolean {
    return this.#chain(nodeId).some(
      (a) =>
        (a.grant.tokens !== undefined && a.subtreeTokens >= a.grant.tokens) ||
        (a.grant.usd !== undefined && a.subtreeUsd >= a.grant.usd),
    );
  }

  /** Spent by the node and its descendants. */
  subtree(nodeId: string): { tokens: number; usd: number } {
    const account = this.#accounts.get(nodeId);
    return { tokens: account?.subtreeTokens ?? 0, usd: account?.subtreeUsd ?? 0 };
  }

  /** Estimates in flight in the node's subtree. */
  inFlight(nodeId: string): number {
    return this.#accounts.get(nodeId)?.subtreeInFlight ?? 0;
  }

  #hold(self: Account, estimate: number): void {
    const delta = estimate - self.inFlight;
    self.inFlight = estimate;
    for (let account: Account | undefined = self; account !== undefined; account = account.parent)
      account.subtreeInFlight += delta;
  }

  #chain(nodeId: string): Account[] {
    const chain: Account[] = [];
    for (let account = this.#accounts.get(nodeId); account !== undefined; account = account.parent)
      chain.push(account);
    return chain;
  }
}
