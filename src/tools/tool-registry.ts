import { type CountBound, type ToolCall, type ToolDef } from '../protocol/index.js';
import { ArgsValidator } from './args-validator.js';
import { CallBudget } from './call-budget.js';
import { indexTools, type IndexedTool, type ToolConflict } from './index-tools.js';
import {
  toolError,
  toolRefusal,
  type ToolCallContext,
  type ToolHost,
  type ToolKind,
  type ToolOutput,
  type ToolSource,
} from './tool.js';
import { isToolAllowed } from '../authority/index.js';

/** Tool names listed in an "unknown tool" message; a big MCP catalogue would drown the answer. */
const MAX_NAMES_SHOWN = 40;

export interface ToolRegistryOptions {
  /** Where tools come from. On a name clash internal beats builtin beats mcp. */
  sources: readonly ToolSource[];
  /** The node's tool grant (`*`, exact names, `prefix*`); `undefined` is unnarrowed. */
  allow?: readonly string[] | undefined;
  /** The `max_calls` caveat: how many tool calls may run in all (default unlimited). */
  maxCalls?: CountBound;
  /**
   * Told when a source fails to refresh. The source keeps the tools it listed before and the
   * other sources refresh as usual: one MCP server going away must not end the turn.
   */
  onRefreshError?: (source: string, error: unknown) => void;
}

/**
 * The tools an agent can use, from every source, behind one `ToolHost`. The allow-list applies to
 * what the model sees and to dispatch alike, and a hidden tool is refused with the same words as an
 * unknown one. Arguments are checked against the tool's JSON Schema before it runs, so a model that
 * sends bad arguments gets a tool error naming each bad field; a tool that throws becomes a tool
 * error too. Tool lists are read when the registry is built and at each `refresh` (turn
 * boundaries), never in the middle of a turn.
 */
export class ToolRegistry implements ToolHost {
  readonly #sources: readonly ToolSource[];
  readonly #allow: readonly string[] | undefined;
  readonly #budget: CallBudget;
  readonly #validator = new ArgsValidator();
  readonly #onRefreshError: ((source: string, error: unknown) => void) | undefined;
  #tools = new Map<string, IndexedTool>();
  #conflicts: ToolConflict[] = [];
  #definitions: ToolDef[] = [];

  constructor(options: ToolRegistryOptions) {
    this.#sources = [...options.sources];
    this.#allow = options.allow;
    this.#budget = new CallBudget(options.maxCalls ?? 'unlimited');
    this.#onRefreshError = options.onRefreshError;
    this.#rebuild();
  }

  /** The allowed tools, in precedence order: what the model sees. */
  definitions(): readonly ToolDef[] {
    return this.#definitions;
  }

  /** Tools dropped because a higher-precedence tool has the same name, for the log. */
  conflicts(): readonly ToolConflict[] {
    return this.#conflicts;
  }

  /** Where an allowed tool comes from; `undefined` for an unknown or hidden tool. */
  kindOf(name: string): ToolKind | undefined {
    return this.#allowed(name)?.kind;
  }

  /** The short name of the source an allowed tool comes from (`builtin`, `mcp:github`). */
  sourceOf(name: string): string | undefined {
    return this.#allowed(name)?.source;
  }

  /** Tool calls that have run so far (what `max_calls` counts). */
  get callsUsed(): number {
    return this.#budget.used;
  }

  async call(call: ToolCall, context: ToolCallContext): Promise<ToolOutput> {
    const entry = this.#allowed(call.name);
    if (entry === undefined) return toolRefusal(this.#unknownMessage(call.name));
    if (this.#budget.isSpent) return toolRefusal(this.#budget.spentMessage());
    const args = await this.#validator.check(entry.tool.def, call.args);
    if (!args.ok) return toolRefusal(args.message);
    // Cancelled while the arguments were checked: do not start the tool, nor spend the call.
    context.signal.throwIfAborted();
    const taken = this.#budget.take();
    if (!taken.ok) return toolRefusal(taken.message);
    try {
      return await entry.tool.run(call.args, context);
    } catch (error) {
      // A cancelled call is not the tool's failure: let the cancellation reach the loop.
      if (context.signal.aborted) throw error;
      return toolError(`Tool \`${call.name}\` failed: ${messageOf(error)}`);
    }
  }

  /** Brings every source up to date, then re-reads their tool lists. */
  async refresh({ signal }: { signal?: AbortSignal } = {}): Promise<void> {
    const own = signal ?? new AbortController().signal;
    const results = await Promise.allSettled(
      this.#sources.map(async (source) => {
        await source.refresh?.({ signal: own });
      }),
    );
    own.throwIfAborted();
    results.forEach((result, i) => {
      const source = this.#sources[i];
      if (result.status === 'rejected' && source !== undefined)
        this.#onRefreshError?.(source.name, result.reason);
    });
    this.#rebuild();
  }

  #rebuild(): void {
    const { tools, conflicts } = indexTools(this.#sources);
    this.#tools = tools;
    this.#conflicts = conflicts;
    this.#definitions = [...tools.values()]
      .filter((entry) => isToolAllowed(entry.tool.def.name, this.#allow))
      .map((entry) => entry.tool.def);
    this.#validator.retain([...tools.values()].map((entry) => entry.tool.def));
  }

  #allowed(name: string): IndexedTool | undefined {
    const entry = this.#tools.get(name);
    return entry !== undefined && isToolAllowed(name, this.#allow) ? entry : undefined;
  }

  #unknownMessage(name: string): string {
    const names = this.#definitions.slice(0, MAX_NAMES_SHOWN).map((def) => `\`${def.name}\``);
    const more = this.#definitions.length - names.length;
    const list = names.join(', ') + (more > 0 ? ` and ${more} more` : '');
    return `Unknown tool \`${name}\`. Available tools: ${list || 'none'}.`;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
