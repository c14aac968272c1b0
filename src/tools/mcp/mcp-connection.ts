import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool as McpListedTool } from '@modelcontextprotocol/sdk/types.js';
import { ArborError } from '../../protocol/index.js';
import { listAllTools } from './list-all-tools.js';
import type { CloseOutcome, ServerChannel } from './server-channel.js';
import type { ToolList } from './tool-list.js';

/** A tool as a server lists it (`tools/list`): name, description, input and output schemas. */
export type { McpListedTool };

/** What `tools/call` answered, as the SDK returns it. */
export type McpCallResult = Awaited<ReturnType<Client['callTool']>>;

export interface McpCallOptions {
  signal?: AbortSignal | undefined;
  /** Request `_meta`: correlation keys the server may log or use (see `toMcpMeta`). */
  meta?: Record<string, unknown> | undefined;
  /** How long to wait for the answer; the request is cancelled after. */
  timeoutMs: number;
}

/** Everything a connection is made of, assembled by `connectMcpServer`. */
export interface McpConnectionParts {
  name: string;
  client: Client;
  channel: ServerChannel;
  list: ToolList;
  /** Grace for each step of the close ladder, in milliseconds. */
  closeGraceMs: number;
  scrub: (text: string) => string;
}

/**
 * A live connection to one MCP server: its tools (listed at connect, re-listed by `refresh` after
 * `list_changed`), calls, and an idempotent `close` that ends a stdio server's process.
 */
export class McpConnection {
  readonly name: string;
  readonly #parts: McpConnectionParts;
  #closing: Promise<CloseOutcome> | undefined;

  constructor(parts: McpConnectionParts) {
    this.name = parts.name;
    this.#parts = parts;
  }

  get transport(): 'stdio' | 'http' {
    return this.#parts.channel.kind;
  }

  /** The stdio server's process id; `undefined` for HTTP. */
  get pid(): number | undefined {
    return this.#parts.channel.pid();
  }

  /** The server's name and version from its `initialize` answer. */
  get serverInfo(): { name: string; version: string } | undefined {
    const info = this.#parts.client.getServerVersion();
    return info === undefined ? undefined : { name: info.name, version: info.version };
  }

  /** The server's usage instructions from its `initialize` answer, if it gave any. */
  get instructions(): string | undefined {
    return this.#parts.client.getInstructions();
  }

  /** Has the server announced `list_changed` since the tools were last listed? */
  get isStale(): boolean {
    return this.#parts.list.isStale;
  }

  /** Bumps each time the tool list is replaced, so a cache of derived tools knows to rebuild. */
  get listVersion(): number {
    return this.#parts.list.version;
  }

  get isClosed(): boolean {
    return this.#closing !== undefined || this.#parts.channel.hasExited();
  }

  /** The tools as last listed. */
  tools(): readonly McpListedTool[] {
    return this.#parts.list.current();
  }

  /** Removes every secret handed to this server (resolved env values, header values) from a text. */
  scrub(text: string): string {
    return this.#parts.scrub(text);
  }

  /** The last lines the stdio server wrote on stderr, scrubbed. */
  stderr(): string[] {
    return this.#parts.channel.stderr();
  }

  /**
   * Lists the tools again if the server announced a change; resolves whether it did. Call it at
   * turn boundaries only. A failed listing keeps the old list and rejects with `mcp_unavailable`.
   */
  async refresh(options: { signal?: AbortSignal } = {}): Promise<boolean> {
    const { list, name, scrub } = this.#parts;
    const signal = options.signal ?? new AbortController().signal;
    try {
      return await list.refresh(signal);
    } catch (error) {
      if (signal.aborted)
        throw new ArborError(
          'cancelled',
          `Re-listing the tools of MCP server \`${name}\` was cancelled.`,
          { cause: signal.reason },
        );
      const message = error instanceof Error ? error.message : String(error);
      throw new ArborError(
        'mcp_unavailable',
        `MCP server \`${name}\` failed to list its tools again: ${scrub(message)}.`,
        // No `cause`: a transport error quotes the URL and its host.
        {
          details: { server: name, kind: this.#parts.channel.hasExited() ? 'exited' : 'protocol' },
        },
      );
    }
  }

  /** Calls a tool by its name on the server. Rejects on a transport or protocol failure. */
  callTool(
    name: string,
    args: Record<string, unknown>,
    options: McpCallOptions,
  ): Promise<McpCallResult> {
    return this.#parts.client.callTool(
      { name, arguments: args, ...(options.meta === undefined ? {} : { _meta: options.meta }) },
      undefined,
      {
        timeout: options.timeoutMs,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      },
    );
  }

  /**
   * Closes the connection: for a stdio server, the ladder stdin EOF → SIGTERM → SIGKILL, resolving
   * once the process is gone; for HTTP, the session is ended. Safe to call more than once.
   */
  close(): Promise<CloseOutcome> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<CloseOutcome> {
    const { channel, client, closeGraceMs } = this.#parts;
    const outcome = await channel.stop({ graceMs: closeGraceMs, force: false });
    await client.close().catch(() => undefined);
    return outcome;
  }
}

/** Lists tools over a connected client: the lister a `ToolList` is built with. */
export function toolLister(
  client: Client,
  timeoutMs: number,
): (signal: AbortSignal) => Promise<McpListedTool[]> {
  return (signal) => listAllTools(client, { signal, timeoutMs });
}
