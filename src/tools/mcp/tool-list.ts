import type { Tool as McpListedTool } from '@modelcontextprotocol/sdk/types.js';

/**
 * A server's tool list and whether it is stale. `notifications/tools/list_changed` only marks it
 * stale; the list is fetched again when `refresh` is called (at a turn boundary), so the tools a
 * model sees never change in the middle of a turn. A notification that arrives while a listing is
 * in flight leaves the list stale: the listing may have been answered before the change.
 */
export class ToolList {
  readonly #list: (signal: AbortSignal) => Promise<McpListedTool[]>;
  #tools: readonly McpListedTool[] = [];
  #changes = 0;
  /** `#changes` when the current list was asked for; -1 before the first listing. */
  #listedAt = -1;
  #version = 0;
  #inFlight: Promise<boolean> | undefined;

  constructor(list: (signal: AbortSignal) => Promise<McpListedTool[]>) {
    this.#list = list;
  }

  /** The server announced a change. */
  markChanged(): void {
    this.#changes += 1;
  }

  get isStale(): boolean {
    return this.#listedAt !== this.#changes;
  }

  /** Bumps each time a listing replaces the tools. */
  get version(): number {
    return this.#version;
  }

  current(): readonly McpListedTool[] {
    return this.#tools;
  }

  /**
   * Lists again if the list is stale; resolves whether it did. A refresh already in flight is
   * shared (and runs under its first caller's signal). On failure the previous list is kept and
   * stays stale, so the next boundary tries again.
   */
  refresh(signal: AbortSignal): Promise<boolean> {
    if (!this.isStale) return Promise.resolve(false);
    this.#inFlight ??= this.#load(signal).finally(() => {
      this.#inFlight = undefined;
    });
    return this.#inFlight;
  }

  async #load(signal: AbortSignal): Promise<boolean> {
    const askedAt = this.#changes;
    const tools = await this.#list(signal);
    this.#tools = tools;
    this.#listedAt = askedAt;
    this.#version += 1;
    return true;
  }
}
