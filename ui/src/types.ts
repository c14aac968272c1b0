/** What the dashboard's API answers, in the field names of the events and the store. */

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cost_usd?: number;
}

export interface RunSummary {
  run_id: string;
  status: string;
  instruction: string;
  created_at: string;
  ended_at?: string;
  duration_ms?: number;
  nodes: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd?: number;
}

export interface NodeView {
  node_id: string;
  path: string;
  parent_id?: string;
  depth: number;
  provider: string;
  status: string;
  instruction: string;
  started_at?: string;
  ended_at?: string;
  duration_ms?: number;
  usage: Usage;
  subtree_usage: Usage;
  result?: unknown;
  reason?: string;
}

export interface Gate {
  gate: string;
  node_id?: string;
  question: string;
  payload: Record<string, unknown>;
  created_at: string;
}

export interface RunDetail extends Omit<RunSummary, 'nodes'> {
  nodes: NodeView[];
  gates: Gate[];
  trace_id?: string;
  trace_url?: string;
}

/** An event as `--events ndjson` writes it, with its sequence number in the store. */
export interface WireEvent {
  seq: number;
  ts: string;
  run_id: string;
  node_id?: string;
  path?: string;
  event: string;
  [field: string]: unknown;
}

export type TranscriptMessage =
  | { role: 'system'; text: string }
  | { role: 'user'; text: string; principal?: string }
  | {
      role: 'assistant';
      text?: string;
      tool_calls: { id: string; name: string; args: unknown }[];
    }
  | { role: 'tool'; id: string; name: string; content: unknown; is_error?: boolean }
  | { role: 'note'; text: string };

export interface NodeDetail extends NodeView {
  grant: Record<string, unknown>;
  messages: TranscriptMessage[];
  events: WireEvent[];
}

export interface Me {
  name: string;
  role: 'operator' | 'user';
  can_answer: boolean;
  title?: string;
}
