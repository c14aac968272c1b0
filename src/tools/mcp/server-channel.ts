import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { StopOutcome } from './stop-process.js';

/** How arbor ended a connection: a stdio process's ladder outcome, or an HTTP session closed. */
export type CloseOutcome = StopOutcome | { how: 'disconnected'; ms: number };

/** The transport side of one connection: an SDK transport, and how to know it is gone and end it. */
export interface ServerChannel {
  kind: 'stdio' | 'http';
  transport: Transport;
  /** The stdio server's process id once spawned. */
  pid(): number | undefined;
  /** Has the stdio server's process ended? Always false for HTTP. */
  hasExited(): boolean;
  /** Resolves when a stdio server's process has ended; never for HTTP. */
  exited: Promise<void>;
  /** The last stderr lines of a stdio server, scrubbed. */
  stderr(): string[];
  /** Waits (at most `ms`) for a stdio server's stderr to be read to its end. */
  settleStderr(ms: number): Promise<void>;
  stop(options: { graceMs: number; force: boolean }): Promise<CloseOutcome>;
}
