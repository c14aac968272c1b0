import type { JsonObject, ToolCall, ToolDef } from '../protocol/index.js';

/** What a tool call produced: content for the model, and whether it is an error it should see. */
export interface ToolOutput {
  content: unknown;
  isError: boolean;
}

export interface ToolCallContext {
  signal: AbortSignal;
  /** The model's id for this call. */
  callId: string;
}

/** One tool: its definition (what the model sees) and how to run it. */
export interface Tool {
  def: ToolDef;
  run(args: JsonObject, context: ToolCallContext): Promise<ToolOutput>;
}

/**
 * The tools an agent can use. `definitions()` is what the model sees; `call` dispatches, and must
 * refuse (as a tool error, never a throw) any tool `definitions()` does not list, so a model that
 * names a hidden tool gets nothing more than one that names an unknown tool.
 */
export interface ToolHost {
  definitions(): readonly ToolDef[];
  call(call: ToolCall, context: ToolCallContext): Promise<ToolOutput>;
}

/** A tool error the model can read and act on. */
export function toolError(message: string): ToolOutput {
  return { content: message, isError: true };
}
