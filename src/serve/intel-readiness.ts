import { DIALECTS } from '../intel/index.js';
import type { IntelConfig } from '../protocol/index.js';

/**
 * Whether every intelligence endpoint is down, as `/readyz` needs to know it. Runs say so (their
 * `intel.health` events); while it is so, each endpoint is probed at the breaker's cadence with
 * `GET /models` — a listing, not a model call — and the first that answers at all (any status
 * below 500) ends it, so an idle server learns the endpoints are back without a run.
 */
export class IntelReadiness {
  readonly #intel: IntelConfig;
  readonly #onChange: (down: boolean) => void;
  #down = false;
  #timer: NodeJS.Timeout | undefined;
  #probing = false;

  constructor(intel: IntelConfig, onChange: (down: boolean) => void) {
    this.#intel = intel;
    this.#onChange = onChange;
  }

  get allDown(): boolean {
    return this.#down;
  }

  /** A run's report: every endpoint down, or one back. */
  report(down: boolean): void {
    if (down === this.#down) return;
    this.#down = down;
    this.#onChange(down);
    if (down) this.#schedule();
    else this.stop();
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #schedule(): void {
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      void this.#probe();
    }, this.#intel.breaker.cooldown_ms).unref();
  }

  async #probe(): Promise<void> {
    if (this.#probing || !this.#down) return;
    this.#probing = true;
    try {
      for (const endpoint of this.#intel.endpoints) {
        if (await reachable(endpoint, this.#intel.timeout_ms)) {
          this.report(false);
          return;
        }
      }
    } finally {
      this.#probing = false;
    }
    this.#schedule();
  }
}

async function reachable(
  endpoint: IntelConfig['endpoints'][number],
  timeoutMs: number,
): Promise<boolean> {
  const url = `${endpoint.url.replace(/\/+$/, '')}/models`;
  try {
    const response = await fetch(url, {
      headers: { ...DIALECTS[endpoint.dialect].authHeaders(endpoint.api_key), ...endpoint.headers },
      signal: AbortSignal.timeout(Math.min(timeoutMs, 10_000)),
    });
    await response.body?.cancel();
    return response.status < 500;
  } catch {
    return false;
  }
}
