import type { ToolTrifecta } from '../authority/index.js';
import type { JsonObject, ToolCall, ToolDef, TranscriptMessage } from '../protocol/index.js';

/** What a tool call produced: content for the model, and whether it is an error it should see. */
export interface ToolOutput {
  content: unknown;
  isError: boolean;
  /**
   * Where the content came from, when the tool can say more than its name (`http.fetch GET
   * https://… → 200 text/html`): the provenance line of an untrusted result's boundary.
   */
  source?: string;
  /**
   * arbor refused the call before the tool ran (a caveat, a policy, the trifecta, bad arguments):
   * the text is arbor's, nothing came from the tool's source. Only arbor's code sets it; a
   * tool's own error never does, so a server cannot pass its text off as a refusal.
   */
  refused?: boolean;
  /** The real paths of the files the call read (`fs.read`), for the runtime trifecta. */
  read?: string[];
  /** The content comes from an agent that was exposed or sensitive (a sub-agent's answer). */
  taint?: { exposed: boolean; sensitive: boolean };
}

/** Correlation stamped on a call that leaves the process (MCP `_meta`, logs). */
export interface CallMeta {
  runId: string;
  nodeId: string;
  /** W3C trace context of the node, when it has one. */
  traceparent?: string;
  /**
   * Stable for one call of one node: `<run>/<node>#<step>.<index>`. A call replayed after a crash
   * carries the same key, so a server can recognise the repeat.
   */
  idempotencyKey: string;
}

export interface ToolCallContext {
  signal: AbortSignal;
  /** The model's id for this call. */
  callId: string;
  meta?: CallMeta;
  /** The transcript as it stood before the step that made this call (what a fork inherits). */
  history?: () => readonly TranscriptMessage[];
}

/** Where a tool comes from; on a name clash the earlier kind wins (internal > builtin > mcp). */
export type ToolKind = 'internal' | 'builtin' | 'mcp';

/** One tool: its definition (what the model sees) and how to run it. */
export interface Tool {
  def: ToolDef;
  /**
   * What holding and calling it brings to the trifecta, declared by the tool (every built-in
   * does). An MCP tool has none of its own: its server's configured tags count.
   */
  trifecta?: ToolTrifecta;
  run(args: JsonObject, context: ToolCallContext): Promise<ToolOutput>;
}

/**
 * A set of tools of one kind whose list may change (an MCP server announcing `list_changed`).
 * The registry reads `tools()` at turn boundaries, never in the middle of a turn.
 */
export interface ToolSource {
  kind: ToolKind;
  /** A short name for messages: `builtin`, `mcp:github`. */
  name: string;
  tools(): readonly Tool[];
  /** Brings the list up to date if the source knows it changed; called at turn boundaries. */
  refresh?(options: { signal: AbortSignal }): Promise<void>;
}

/**
 * The tools an agent can use. `definitions()` is what the model sees; `call` dispatches, and must
 * refuse (as a tool error, never a throw) any tool `definitions()` does not list, so a model that
 * names a hidden tool gets nothing more than one that names an unknown tool.
 */
export interface ToolHost {
  definitions(): readonly ToolDef[];
  call(call: ToolCall, context: ToolCallContext): Promise<ToolOutput>;
  /** Brings tool lists up to date at a turn boundary. */
  refresh?(options: { signal: AbortSignal }): Promise<void>;
}

/** A tool error the model can read and act on. */
export function toolError(message: string): ToolOutput {
  return { content: message, isError: true };
}

/** arbor's refusal of a call, before the tool ran: an error the model reads, marked as arbor's. */
export function toolRefusal(message: string): ToolOutput {
  return { content: message, isError: true, refused: true };
}
