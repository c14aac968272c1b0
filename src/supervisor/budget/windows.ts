import { z } from 'zod';
import type { RunStore } from '../../store/store-port.js';

const PERIOD_MS = { minute: 60_000, hour: 3_600_000, day: 86_400_000 } as const;

/** A rate budget over fixed, UTC-aligned windows, with what to do when it is spent. */
export const BudgetWindowSchema = z
  .strictObject({
    per: z.enum(['minute', 'hour', 'day']),
    tokens: z.number().int().positive().optional(),
    requests: z.number().int().positive().optional(),
    /** `wait` for the next window, `degrade` to a cheaper model, or `refuse` the call. */
    tactic: z.enum(['wait', 'degrade', 'refuse']).default('wait'),
    /** The cheaper model, for `degrade`. */
    degrade_model: z.string().min(1).optional(),
  })
  .refine((w) => w.tokens !== undefined || w.requests !== undefined, {
    error: 'expected `tokens` or `requests` (or both)',
  })
  .refine((w) => w.tactic !== 'degrade' || w.degrade_model !== undefined, {
    error: '`tactic = "degrade"` needs a `degrade_model`',
  });
export type BudgetWindow = z.infer<typeof BudgetWindowSchema>;

export type WindowDecision =
  | { ok: true; model?: string }
  | { ok: false; waitMs: number; reason: string }
  | { ok: false; reason: string; refused: true };

/** The longest a call is asked to wait for a window in one answer; it asks again after. */
const MAX_WAIT_MS = 60_000;

/**
 * Windowed budgets shared by every run that uses the store: tokens and requests per minute, hour
 * or day. Counters live in the store, so a restart never re-opens a window already spent.
 */
export class BudgetWindows {
  readonly #windows: readonly BudgetWindow[];
  readonly #store: RunStore;

  constructor(windows: readonly BudgetWindow[], store: RunStore) {
    this.#windows = windows;
    this.#store = store;
  }

  /** Checks one call of `estimate` tokens against every window; counts it when admitted. */
  admit(estimate: number, now: number): WindowDecision {
    let model: string | undefined;
    for (const window of this.#windows) {
      const start = periodStart(window, now);
      const used = this.#store.windowGet(key(window), start);
      const overRequests = window.requests !== undefined && used.requests + 1 > window.requests;
      const overTokens =
        window.tokens !== undefined && used.tokens + estimate > window.tokens && used.tokens > 0;
      if (!overRequests && !overTokens) continue;
      const what = overRequests
        ? `${window.requests ?? 0} requests`
        : `${window.tokens ?? 0} tokens`;
      const reason = `the ${what} per ${window.per} budget is spent until ${new Date(start + PERIOD_MS[window.per]).toISOString()}`;
      if (window.tactic === 'degrade' && window.degrade_model !== undefined) {
        model = window.degrade_model;
        continue;
      }
      if (window.tactic === 'refuse') return { ok: false, reason, refused: true };
      return {
        ok: false,
        reason,
        waitMs: Math.max(100, Math.min(MAX_WAIT_MS, start + PERIOD_MS[window.per] - now)),
      };
    }
    for (const window of this.#windows)
      this.#store.windowAdd(key(window), periodStart(window, now), 0, 1);
    return model === undefined ? { ok: true } : { ok: true, model };
  }

  /** Counts tokens actually used. */
  record(tokens: number, now: number): void {
    for (const window of this.#windows)
      this.#store.windowAdd(key(window), periodStart(window, now), tokens, 0);
  }
}

function periodStart(window: BudgetWindow, now: number): number {
  const period = PERIOD_MS[window.per];
  return Math.floor(now / period) * period;
}

/** Windows with the same limits share a counter, whichever run declared them. */
function key(window: BudgetWindow): string {
  return `${window.per}:${window.tokens ?? '-'}:${window.requests ?? '-'}`;
}
