import type { ReadableSpan, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ExportResultCode } from '@opentelemetry/core';

/** Spans waiting for export, at most; past it new ones are dropped and counted. */
const MAX_QUEUE = 4096;
/** Spans in one export. */
const BATCH = 512;
/** How often the queue is exported. */
const INTERVAL_MS = 1000;

/**
 * Exports ended spans in batches from a bounded queue: a collector that is down or slow never
 * holds a run up or grows memory without end (what does not fit is dropped, and counted), and a
 * flush is bounded in time by its caller.
 */
export class BoundedSpanProcessor implements SpanProcessor {
  readonly #exporter: SpanExporter;
  readonly #queue: ReadableSpan[] = [];
  readonly #timer: NodeJS.Timeout;
  #exporting: Promise<void> | undefined;
  /** Spans dropped because the queue was full or an export failed. */
  dropped = 0;

  constructor(exporter: SpanExporter) {
    this.#exporter = exporter;
    this.#timer = setInterval(() => {
      void this.#exportSome();
    }, INTERVAL_MS);
    this.#timer.unref();
  }

  onStart(): void {
    // Nothing to do until a span ends.
  }

  onEnd(span: ReadableSpan): void {
    if (this.#queue.length >= MAX_QUEUE) {
      this.dropped++;
      return;
    }
    this.#queue.push(span);
    if (this.#queue.length >= BATCH) void this.#exportSome();
  }

  /** Exports everything queued now. */
  async forceFlush(): Promise<void> {
    while (this.#queue.length > 0 || this.#exporting !== undefined) await this.#exportSome();
  }

  async shutdown(): Promise<void> {
    clearInterval(this.#timer);
    await this.forceFlush();
    await this.#exporter.shutdown();
  }

  #exportSome(): Promise<void> {
    if (this.#exporting !== undefined) return this.#exporting;
    const batch = this.#queue.splice(0, BATCH);
    if (batch.length === 0) return Promise.resolve();
    this.#exporting = new Promise<void>((resolve) => {
      this.#exporter.export(batch, (result) => {
        if (result.code !== ExportResultCode.SUCCESS) this.dropped += batch.length;
        resolve();
      });
    }).finally(() => {
      this.#exporting = undefined;
    });
    return this.#exporting;
  }
}
