import type { ChildProcess } from 'node:child_process';
import { PassThrough, type Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { withSealedStdio } from '../sandbox/index.js';

/** The server to spawn, as the SDK's `StdioServerParameters` name it (the options arbor uses). */
export interface SealedStdioParams {
  command: string;
  args?: readonly string[] | undefined;
  /** Added to the SDK's default environment (`HOME`, `PATH`, …), as its own transport does. */
  env: Record<string, string>;
  cwd?: string | undefined;
  /** `pipe`: read through `stderr`, handed out before the process starts. Never inherited. */
  stderr: 'ignore' | 'pipe';
}

/** How long `close` waits after ending stdin, then after SIGTERM, as the SDK's transport does. */
const CLOSE_STEP_MS = 2_000;

/**
 * The client side of MCP's stdio transport: the SDK's `StdioClientTransport`, with one difference
 * that is why it exists: the server is spawned with its stdio sealed (`withSealedStdio`), so no
 * descriptor this process inherited reaches it. The SDK's transport fixes its stdio array to
 * three slots and cannot be told otherwise. The rest follows the SDK's: no shell, newline-framed
 * JSON-RPC over stdin and stdout, and `close` ends stdin, then signals SIGTERM and SIGKILL two
 * seconds apart on timers that do not hold the event loop open. Unlike the SDK's, `pid` is kept
 * after `close`, so a caller can still end a server that outlives it.
 */
export class SealedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #params: SealedStdioParams;
  readonly #readBuffer = new ReadBuffer();
  readonly #stderr: PassThrough | null;
  #process: ChildProcess | undefined;
  #pid: number | undefined;

  constructor(params: SealedStdioParams) {
    this.#params = params;
    this.#stderr = params.stderr === 'pipe' ? new PassThrough() : null;
  }

  /** The server's stderr when it is piped: a stream that exists before the process does. */
  get stderr(): Readable | null {
    return this.#stderr;
  }

  /** The server's process id once spawned, kept after it ends. */
  get pid(): number | undefined {
    return this.#pid;
  }

  /** Spawns the server; resolves once it runs, rejects with the spawn's error. */
  async start(): Promise<void> {
    if (this.#process !== undefined) throw new Error('the stdio transport is already started');
    const { spawn } = await import('node:child_process');
    return new Promise((resolve, reject) => {
      const child = withSealedStdio(['pipe', 'pipe', this.#params.stderr], (stdio) =>
        spawn(this.#params.command, this.#params.args ?? [], {
          env: { ...getDefaultEnvironment(), ...this.#params.env },
          stdio,
          shell: false,
          cwd: this.#params.cwd,
        }),
      );
      this.#process = child;
      this.#pid = child.pid;
      child.on('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.on('spawn', () => {
        resolve();
      });
      child.on('close', () => {
        this.#process = undefined;
        this.onclose?.();
      });
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('data', (chunk: Buffer) => {
        this.#received(chunk);
      });
      child.stdout?.on('error', (error) => this.onerror?.(error));
      if (this.#stderr !== null) child.stderr?.pipe(this.#stderr);
    });
  }

  /** Writes one message; resolves once it is written or buffered below the high-water mark. */
  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#process?.stdin;
    if (stdin === undefined || stdin === null) return Promise.reject(new Error('Not connected'));
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /** Ends stdin, then signals SIGTERM and SIGKILL to a server that stays (see the class). */
  async close(): Promise<void> {
    const child = this.#process;
    this.#process = undefined;
    if (child !== undefined) {
      const closed = new Promise<void>((resolve) => {
        child.once('close', () => {
          resolve();
        });
      });
      const waited = (): Promise<void> =>
        Promise.race([closed, sleep(CLOSE_STEP_MS, undefined, { ref: false })]);
      try {
        child.stdin?.end();
      } catch {
        // Already gone.
      }
      await waited();
      for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
        if (child.exitCode !== null || child.signalCode !== null) break;
        child.kill(signal);
        if (signal === 'SIGTERM') await waited();
      }
    }
    this.#readBuffer.clear();
  }

  #received(chunk: Buffer): void {
    try {
      this.#readBuffer.append(chunk);
    } catch (error) {
      // Past the buffer's cap: the connection cannot recover its framing.
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      this.close().catch(() => undefined);
      return;
    }
    for (;;) {
      try {
        const message = this.#readBuffer.readMessage();
        if (message === null) return;
        this.onmessage?.(message);
      } catch (error) {
        // One bad line (or a handler that threw): reported, and the next line is read.
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      }
    }
  }
}
