import { createHash } from 'node:crypto';
import type { BreakerSettings, Endpoint, IntelActive } from '../protocol/index.js';
import { Breaker } from './breaker.js';
import type { DialectAdapter } from './dialect.js';
import { DIALECTS } from './dialects.js';
import { HealthRecorder } from './endpoint-health.js';
import { joinUrl } from './http-exchange.js';
import type { HeaderReader } from './http-transport.js';
import type { RateLimitReport } from './model.js';
import { parseRateLimitHeaders } from './rate-limit-headers.js';
import { scrubSecrets } from '../protocol/index.js';

/**
 * One endpoint of the pool: where to send, with what headers, its breaker and health. The URL and
 * the credential live here and nowhere else; everything that leaves the pool goes through
 * `scrub`.
 */
export class PoolEndpoint {
  readonly index: number;
  readonly adapter: DialectAdapter;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly streamHeaders: Readonly<Record<string, string>>;
  /** The model this endpoint is asked for, when it overrides the config's. */
  readonly model: string | undefined;
  readonly transport: IntelActive['transport'];
  /** The endpoint's settings as configured, without its credential. */
  readonly settings: Readonly<Omit<Endpoint, 'api_key'>>;
  readonly breaker: Breaker;
  readonly health: HealthRecorder;
  /**
   * Names the provider account and model this endpoint spends from, without saying where it is: a
   * hash of its dialect, address and model. Every child of a run computes the same scope for the
   * same endpoint, so the supervisor can add up what they all know of its rate limits.
   */
  readonly scope: string;
  readonly #secrets: string[];
  readonly #onRateLimit: ((report: RateLimitReport) => void) | undefined;

  constructor(
    endpoint: Endpoint,
    index: number,
    breaker: BreakerSettings,
    options: { model?: string; onRateLimit?: (report: RateLimitReport) => void } = {},
  ) {
    this.index = index;
    this.adapter = DIALECTS[endpoint.dialect];
    this.url = joinUrl(endpoint.url, this.adapter.path);
    const base = new URL(endpoint.url);
    this.transport = base.protocol === 'https:' ? 'https' : 'http';
    this.model = endpoint.model;
    const { api_key: _key, ...settings } = endpoint;
    this.settings = settings;
    // The endpoint's own headers come last so an operator can override the defaults (an Azure
    // `api-key` header, a pinned `anthropic-version`).
    this.headers = {
      'content-type': 'application/json',
      accept: 'application/json',
      ...this.adapter.authHeaders(endpoint.api_key),
      ...endpoint.headers,
    };
    this.streamHeaders = { ...this.headers, accept: 'text/event-stream' };
    this.breaker = new Breaker(breaker);
    this.scope = createHash('sha256')
      .update(`${endpoint.dialect}\n${this.url}\n${endpoint.model ?? options.model ?? ''}`)
      .digest('hex')
      .slice(0, 16);
    this.health = new HealthRecorder(index, endpoint.dialect, this.transport, this.scope);
    this.#onRateLimit = options.onRateLimit;
    this.#secrets = [
      ...(endpoint.api_key === undefined ? [] : [endpoint.api_key]),
      ...Object.values(endpoint.headers),
      endpoint.url,
      this.url,
      base.host,
    ].sort((a, b) => b.length - a.length);
  }

  get active(): IntelActive {
    return { index: this.index, transport: this.transport };
  }

  /**
   * Reads the rate-limit headers of a response from this endpoint (any status) into its health,
   * and passes them on to whoever listens.
   */
  observeHeaders(headers: HeaderReader, now: number): void {
    const limits = parseRateLimitHeaders(headers, now);
    if (limits === undefined) return;
    this.health.recordRateLimit(now, limits);
    this.#onRateLimit?.({ endpoint: this.index, scope: this.scope, at: now, limits });
  }

  /** Text without this endpoint's credential, header values or address. */
  scrub(text: string): string {
    return scrubSecrets(text, this.#secrets);
  }
}
