import { isToolAllowed } from '../../src/authority/index.js';
import type { ToolCall, ToolDef } from '../../src/protocol/index.js';
import {
  toolError,
  toolRefusal,
  type Tool,
  type ToolCallContext,
  type ToolHost,
  type ToolOutput,
} from '../../src/tools/index.js';

/**
 * A tool host for tests (agents get a `ToolRegistry`): a fixed set of tools filtered by an
 * allow-list. The filter applies to what the model sees and to dispatch alike: a tool outside the
 * grant is invisible and refused.
 */
export class ToolSet implements ToolHost {
  readonly #tools = new Map<string, Tool>();
  readonly #allow: readonly string[] | undefined;

  /** Tools listed first win a name clash: pass them in precedence order. */
  constructor(tools: readonly Tool[], allow?: readonly string[]) {
    for (const tool of tools)
      if (!this.#tools.has(tool.def.name)) this.#tools.set(tool.def.name, tool);
    this.#allow = allow;
  }

  definitions(): readonly ToolDef[] {
    return [...this.#tools.values()]
      .filter((tool) => isToolAllowed(tool.def.name, this.#allow))
      .map((tool) => tool.def);
  }

  async call(call: ToolCall, context: ToolCallContext): Promise<ToolOutput> {
    const tool = this.#tools.get(call.name);
    if (tool === undefined || !isToolAllowed(call.name, this.#allow)) {
      return toolRefusal(
        `Unknown tool \`${call.name}\`. Available tools: ${
          this.definitions()
            .map((d) => d.name)
            .join(', ') || 'none'
        }.`,
      );
    }
    try {
      return await tool.run(call.args, context);
    } catch (error) {
      if (context.signal.aborted) throw error;
      return toolError(
        `Tool \`${call.name}\` failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}
