import type {
  ControlFrame,
  EndpointRef,
  IntelLimitsFrame,
  RateLimitName,
  Usage,
} from '../../protocol/index.js';
import type { BudgetRequest } from '../../tools/index.js';
import type { RunStore } from '../../store/store-port.js';
import { Ledger, type Grant } from './ledger.js';
import { ProviderLimits } from './provider-limits.js';
import { BudgetWindows, type BudgetWindow } from './windows.js';

type BudgetAnswer = Omit<Extract<ControlFrame, { type: 'budget_grant' }>, 'type' | 'id'>;

/**
 * An admission's answer, and when it is a wait for the provider's rate limits, which limit of
 * which endpoint (for the `intel.rate_wait` event and the live tree; not sent to the child).
 */
export type BudgetAdmission = BudgetAnswer & {
  providerWait?: { endpoint: number; limit: RateLimitName };
};

export interface BudgetSettings {
  /** The tree's ceiling: the root's grant, which bounds every descendant. */
  ceiling: Grant;
  /** A child asking for more than its caller has left gets what is left (`clamp`) or nothing (`refuse`). */
  onExcess: 'clamp' | 'refuse';
  windows: readonly BudgetWindow[];
  /**
   * `pace`: calls wait for the provider's limits as responses report them (the default);
   * `ignore`: they go regardless, and a 429 is retried as the endpoint's `retry-after` says.
   */
  providerLimits?: 'pace' | 'ignore';
}

/** What a caller has, for carving its child's share. */
export interface CallerBudget {
  id: string;
  path: string;
  /** Model calls the caller has made, and may make in all. */
  steps: number;
  maxSteps: number;
  /** When the caller's own deadline passes (epoch ms), if it has one. */
  deadlineAt: number | undefined;
}

/** A child's share as carved at spawn: tokens and money for the ledger, steps and wall time for its limits. */
export type Share =
  | { ok: true; grant: Grant; maxSteps: number; deadlineMs: number | undefined }
  | { ok: false; reason: string };

const AXIS_NAMES = {
  tokens: 'tokens',
  usd: 'money',
  steps: 'model calls',
  wall_ms: 'time',
} as const;

/**
 * The run's budget: the ledger of grants and spend across the tree, and the windowed rate budgets
 * shared across runs. The supervisor asks it at every spawn (carve) and before every model call
 * (admit), and tells it every usage frame (record).
 */
export class Budget {
  readonly ledger = new Ledger();
  readonly #settings: BudgetSettings;
  readonly #windows: BudgetWindows;
  /** The providers' rate limits, as the tree's calls report them; absent when they are ignored. */
  readonly #provider: ProviderLimits | undefined;

  constructor(settings: BudgetSettings, store: RunStore) {
    this.#settings = settings;
    this.#windows = new BudgetWindows(settings.windows, store);
    this.#provider = settings.providerLimits === 'ignore' ? undefined : new ProviderLimits();
  }

  openRoot(nodeId: string): void {
    this.ledger.open(nodeId, undefined, this.#settings.ceiling);
  }

  /**
   * Carves a child's share from what its caller has left: by default all of it, never more. Tokens
   * and money are the caller's whole subtree's (its own spend and its other children's still count
   * against it); model calls and wall time are the child's own, capped by what the caller has left
   * of its own. A request beyond what is left is clamped or refused, as configured.
   */
  share(caller: CallerBudget, requested: BudgetRequest | undefined, now: number): Share {
    const ledger = this.ledger.remaining(caller.id);
    const left = {
      tokens: ledger.tokens,
      usd: ledger.usd,
      steps: caller.maxSteps - caller.steps,
      wall_ms: caller.deadlineAt === undefined ? undefined : caller.deadlineAt - now,
    };
    const given: Partial<Record<keyof typeof left, number>> = {};
    for (const axis of ['tokens', 'usd', 'steps', 'wall_ms'] as const) {
      const have = left[axis];
      const want = requested?.[axis];
      if (have !== undefined && have <= 0)
        return {
          ok: false,
          reason: `budget: node ${caller.path} has no ${AXIS_NAMES[axis]} left to give`,
        };
      if (
        want !== undefined &&
        have !== undefined &&
        want > have &&
        this.#settings.onExcess === 'refuse'
      ) {
        const shown = axis === 'usd' ? `$${have.toFixed(4)}` : String(Math.floor(have));
        return {
          ok: false,
          reason: `budget: ${String(want)} ${axis} asked, but node ${caller.path} has ${shown} left (budget.on_excess = "refuse")`,
        };
      }
      const value = want === undefined ? have : have === undefined ? want : Math.min(want, have);
      if (value !== undefined) given[axis] = value;
    }
    return {
      ok: true,
      grant: {
        ...(given.tokens === undefined ? {} : { tokens: given.tokens }),
        ...(given.usd === undefined ? {} : { usd: given.usd }),
      },
      maxSteps: given.steps ?? left.steps,
      deadlineMs: given.wall_ms === undefined ? undefined : Math.ceil(given.wall_ms),
    };
  }

  open(nodeId: string, parentId: string, grant: Grant): void {
    this.ledger.open(nodeId, parentId, grant);
  }

  /**
   * Admission of one model call: the ledger first (grants up the tree), then the provider's rate
   * limits for the endpoint the call will try first (`endpoint`), then the windows.
   */
  admit(nodeId: string, estimate: number, now: number, endpoint?: EndpointRef): BudgetAdmission {
    const ledger = this.ledger.admit(nodeId, estimate);
    if (!ledger.ok)
      return 'waitMs' in ledger
        ? { ok: false, wait_ms: ledger.waitMs }
        : { ok: false, reason: ledger.reason, limit: ledger.limit };
    const provider = this.#provider?.check(endpoint, estimate, now) ?? { ok: true };
    if (!provider.ok) {
      this.ledger.close(nodeId);
      return {
        ok: false,
        wait_ms: provider.waitMs,
        providerWait: { endpoint: provider.endpoint, limit: provider.limit },
      };
    }
    const window = this.#windows.admit(estimate, now);
    if (window.ok) {
      this.#provider?.hold(nodeId, endpoint, estimate);
      return window.model === undefined ? { ok: true } : { ok: true, model: window.model };
    }
    // The call does not go ahead now: release what the ledger held for it.
    this.ledger.close(nodeId);
    return 'waitMs' in window
      ? { ok: false, wait_ms: window.waitMs }
      : { ok: false, reason: window.reason, limit: 'window' };
  }

  /** What one of the node's calls heard of its provider's limits; its call is answered. */
  noteProviderLimits(nodeId: string, frame: IntelLimitsFrame, now: number): void {
    this.#provider?.note(nodeId, frame, now);
  }

  record(nodeId: string, usage: Usage, now: number): void {
    this.ledger.record(nodeId, usage);
    this.#provider?.release(nodeId);
    this.#windows.record(usage.input_tokens + usage.output_tokens, now);
  }

  close(nodeId: string): void {
    this.ledger.close(nodeId);
    this.#provider?.release(nodeId);
  }
}
