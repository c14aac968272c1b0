import type { EndpointRef, IntelLimitsFrame, RateLimitName } from '../../protocol/index.js';

/** One of a provider's limits as the supervisor last heard it, on its own clock. */
interface Limit {
  size: number | undefined;
  remaining: number;
  /** When the provider said the limit is whole again; absent: not said, or already passed. */
  resetAt: number | undefined;
}

/** What the run knows of one provider account and model (one endpoint `scope`). */
interface ScopeState {
  /** The endpoint's index in the run's list, for events and the live tree. */
  endpoint: number;
  limits: Partial<Record<RateLimitName, Limit>>;
  /** Calls admitted to this scope and not yet answered, and their estimates in tokens. */
  heldRequests: number;
  heldTokens: number;
}

/** A call admitted and not yet answered: which scope it spends, and its estimate. */
interface Hold {
  scope: string;
  tokens: number;
}

/** Admission by the provider's limits: go, or wait (how long, for which limit of which endpoint). */
export type ProviderDecision =
  | { ok: true }
  | { ok: false; waitMs: number; limit: RateLimitName; endpoint: number; reason: string };

/** How long a call waits when only calls in flight (not yet reported) stand in its way. */
export const IN_FLIGHT_WAIT_MS = 200;
/** The longest wait given in one answer; the call asks again after it. */
const MAX_WAIT_MS = 60_000;
const NAMES = ['requests', 'tokens', 'input_tokens', 'output_tokens'] as const;

/**
 * The provider's rate limits as the tree's model calls report them (`intel_limits` frames), by
 * endpoint scope, shared by every node of the run. Before a call is admitted, what the provider
 * says remains, less what calls already admitted and not yet answered will take, must cover it:
 * one request, and its estimate in tokens (input tokens for Anthropic's input limit; output
 * counts as one token, being unknown before the call). When it does not and the provider named a
 * reset ahead, the call waits until that reset (a fixed window and a token bucket are both whole
 * again by then); once a reset passes, the limit counts as whole until the next report. A call
 * estimated above a limit's whole size never fits and is not held back: the provider decides.
 */
export class ProviderLimits {
  readonly #scopes = new Map<string, ScopeState>();
  readonly #holds = new Map<string, Hold>();

  /**
   * A node's call heard from its provider. Reports from calls answered at once reach the
   * supervisor in any order (each child has its own pipe), so a report never raises what remains
   * of a limit before that limit's known reset: the lower count is the newer one. Otherwise the
   * newest report replaces what was known.
   */
  note(nodeId: string, frame: IntelLimitsFrame, now: number): void {
    const { index, scope } = frame.endpoint;
    this.release(nodeId);
    const state = this.#state(scope, index);
    state.endpoint = index;
    const known = state.limits;
    state.limits = {};
    for (const name of NAMES) {
      const axis = frame[name];
      if (axis === undefined) continue;
      const heard: Limit = {
        size: axis.limit,
        remaining: axis.remaining,
        resetAt: axis.reset_ms === undefined ? undefined : now + axis.reset_ms,
      };
      const before = known[name];
      const isStale =
        before?.resetAt !== undefined && now < before.resetAt && heard.remaining > before.remaining;
      state.limits[name] = isStale ? before : heard;
    }
  }

  /** Whether a call of `estimate` tokens to `endpoint` fits what the provider has left now. */
  check(endpoint: EndpointRef | undefined, estimate: number, now: number): ProviderDecision {
    const state = endpoint === undefined ? undefined : this.#scopes.get(endpoint.scope);
    if (state === undefined) return { ok: true };
    let wait: ProviderDecision = { ok: true };
    for (const name of NAMES) {
      const limit = this.#current(state, name, now);
      if (limit === undefined) continue;
      const cost = name === 'requests' || name === 'output_tokens' ? 1 : estimate;
      const held =
        name === 'requests' || name === 'output_tokens' ? state.heldRequests : state.heldTokens;
      if (cost <= limit.remaining - held) continue;
      if (limit.size !== undefined && cost > limit.size) continue;
      let waitMs: number;
      if (limit.resetAt !== undefined) waitMs = limit.resetAt - now;
      else if (held > 0) waitMs = IN_FLIGHT_WAIT_MS;
      else continue;
      waitMs = Math.max(1, Math.min(MAX_WAIT_MS, Math.ceil(waitMs)));
      if (!wait.ok && wait.waitMs >= waitMs) continue;
      wait = {
        ok: false,
        waitMs,
        limit: name,
        endpoint: state.endpoint,
        reason: `endpoint ${state.endpoint}: the provider has ${Math.max(0, limit.remaining - held)} ${name.replace('_', ' ')} left (${held} held by calls in flight), ${cost} needed`,
      };
    }
    return wait;
  }

  /** An admitted call holds its share until its provider answers (or its node reports usage or ends). */
  hold(nodeId: string, endpoint: EndpointRef | undefined, estimate: number): void {
    this.release(nodeId);
    if (endpoint === undefined) return;
    const state = this.#state(endpoint.scope, endpoint.index);
    state.heldRequests += 1;
    state.heldTokens += estimate;
    this.#holds.set(nodeId, { scope: endpoint.scope, tokens: estimate });
  }

  /** The node's call in flight, if any, no longer holds anything. */
  release(nodeId: string): void {
    const hold = this.#holds.get(nodeId);
    if (hold === undefined) return;
    this.#holds.delete(nodeId);
    const state = this.#scopes.get(hold.scope);
    if (state === undefined) return;
    state.heldRequests -= 1;
    state.heldTokens -= hold.tokens;
  }

  /** A limit as it stands at `now`: past its reset it is whole again (or unknown, without a size). */
  #current(state: ScopeState, name: RateLimitName, now: number): Limit | undefined {
    const limit = state.limits[name];
    if (limit?.resetAt === undefined || now < limit.resetAt) return limit;
    const whole =
      limit.size === undefined
        ? undefined
        : { size: limit.size, remaining: limit.size, resetAt: undefined };
    state.limits = { ...state.limits, [name]: whole };
    return whole;
  }

  #state(scope: string, endpoint: number): ScopeState {
    let state = this.#scopes.get(scope);
    if (state === undefined) {
      state = { endpoint, limits: {}, heldRequests: 0, heldTokens: 0 };
      this.#scopes.set(scope, state);
    }
    return state;
  }
}
