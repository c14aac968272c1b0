import { lookup } from 'node:dns/promises';
import { readWebhookUrl, webhookAddressProblem } from '../authority/webhook-url.js';
import type { ServeTable } from '../config/index.js';
import { ArborError } from '../protocol/index.js';
import { fetchPinned } from '../tools/builtin/fetch-pinned.js';

/** How long resolving a host may take. */
const LOOKUP_TIMEOUT_MS = 5000;
/** How long one delivery may take. */
const DELIVERY_TIMEOUT_MS = 10_000;

/**
 * Outbound notifications of `arbor serve` (A2A push notifications, the `on_gate` webhook),
 * checked against SSRF as `http.fetch` is: http or https only, no credentials in the URL, and a
 * host that resolves to a loopback, private, link-local (cloud metadata) or other special address
 * is refused unless `[serve] webhook_allow` names it. The request goes to the address that was
 * checked (no second lookup to rebind), without redirects. Delivery is best effort and in order
 * per URL; a failure is reported, never retried into a storm.
 */
export class Webhooks {
  readonly #allow: readonly string[];
  readonly #warn: (line: string) => void;
  readonly #chains = new Map<string, Promise<void>>();

  constructor(allow: readonly string[], warn: (line: string) => void) {
    this.#allow = allow;
    this.#warn = warn;
  }

  /** Why `url` may not be called, or undefined when it may. */
  async check(url: string): Promise<string | undefined> {
    return (await this.refusal(url))?.reason;
  }

  /**
   * Why `url` may not be called, and whether only because its host cannot be resolved right now
   * (which may pass later), or undefined when it may.
   */
  async refusal(url: string): Promise<{ reason: string; unresolved: boolean } | undefined> {
    const target = await this.#target(url);
    return target.ok
      ? undefined
      : { reason: target.reason, unresolved: target.unresolved === true };
  }

  /** Posts `body` to `url` after the ones queued before it; resolves once it has been tried. */
  send(url: string, body: string, headers: Record<string, string>): Promise<void> {
    const previous = this.#chains.get(url) ?? Promise.resolve();
    const next = previous.then(() => this.#deliver(url, body, headers));
    this.#chains.set(url, next);
    void next.then(() => {
      if (this.#chains.get(url) === next) this.#chains.delete(url);
    });
    return next;
  }

  /** Resolves once every delivery queued so far has been tried. */
  async idle(): Promise<void> {
    await Promise.all([...this.#chains.values()]);
  }

  async #deliver(url: string, body: string, headers: Record<string, string>): Promise<void> {
    const target = await this.#target(url);
    if (!target.ok) {
      this.#warn(`notification to ${redacted(url)} not sent: ${target.reason}`);
      return;
    }
    try {
      const response = await fetchPinned({
        url: target.url,
        address: target.address,
        family: target.family,
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
        maxBytes: 4096,
        signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
      });
      if (response.status >= 300)
        this.#warn(`notification to ${redacted(url)}: HTTP ${response.status}`);
    } catch (error) {
      this.#warn(
        `notification to ${redacted(url)} failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  async #target(
    text: string,
  ): Promise<
    | { ok: true; url: URL; address: string; family: 4 | 6 }
    | { ok: false; reason: string; unresolved?: true }
  > {
    const read = readWebhookUrl(text);
    if (!read.ok) return read;
    const { url, host, port } = read;
    let first: { address: string; family: number } | undefined;
    try {
      first = (
        await Promise.race([
          lookup(host, { all: true, verbatim: true }),
          new Promise<never>((_, reject) => {
            setTimeout(() => {
              reject(Object.assign(new Error('timeout'), { code: 'a timeout' }));
            }, LOOKUP_TIMEOUT_MS).unref();
          }),
        ])
      )[0];
    } catch (error) {
      return {
        ok: false,
        unresolved: true,
        reason: `${host} could not be resolved (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      };
    }
    if (first === undefined)
      return { ok: false, unresolved: true, reason: `${host} has no address` };
    const problem = webhookAddressProblem(host, first.address, port, this.#allow);
    if (problem !== undefined) return { ok: false, reason: problem };
    return { ok: true, url, address: first.address, family: first.family === 6 ? 6 : 4 };
  }
}

/**
 * Checks `[serve] on_gate` at start with the rules every delivery applies, its host resolved: a
 * URL no delivery could use (`ftp://`, credentials in it, a name that resolves to a metadata or
 * loopback address nobody allowed) stops the start, naming the key. A name that does not resolve
 * right now is only a warning: it may by the time a task waits for a person.
 */
export async function checkOnGate(
  table: ServeTable | undefined,
  warn: (line: string) => void,
): Promise<void> {
  const hook = table?.on_gate;
  if (hook === undefined) return;
  const refusal = await new Webhooks(table?.webhook_allow ?? [], warn).refusal(hook.url);
  if (refusal === undefined) return;
  if (refusal.unresolved) {
    warn(`\`[serve] on_gate.url\`: ${refusal.reason}; it is tried again at each delivery`);
    return;
  }
  throw new ArborError(
    'config',
    `\`[serve] on_gate.url\` (${redacted(hook.url)}) cannot be called: ${refusal.reason}.`,
  );
}

/** A URL as logs may show it: no query (a token can hide there). */
function redacted(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return '(a bad URL)';
  }
}
