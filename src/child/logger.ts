import type { Writable } from 'node:stream';
import { LOG_LEVELS, type Telemetry } from '../protocol/index.js';

export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * NDJSON logs on the child's stderr, each line stamped with the node's correlation ids. Stdout is
 * the protocol channel and never carries a log line.
 */
export class Logger {
  readonly #out: Writable;
  #stamp: Record<string, string> = {};
  #minimum = LOG_LEVELS.indexOf('info');

  constructor(out: Writable) {
    this.#out = out;
  }

  /** Stamps later lines with the node's identity and applies its level. */
  bind(telemetry: Telemetry): void {
    this.#stamp = {
      run_id: telemetry.run_id,
      node_id: telemetry.node_id,
      node_path: telemetry.node_path,
    };
    this.#minimum = LOG_LEVELS.indexOf(telemetry.log_level);
  }

  log(level: LogLevel, msg: string, fields: Record<string, unknown> = {}): void {
    if (LOG_LEVELS.indexOf(level) < this.#minimum || this.#out.destroyed) return;
    this.#out.write(
      `${JSON.stringify({ ts: new Date().toISOString(), level, msg, ...this.#stamp, ...fields })}\n`,
    );
  }
}
