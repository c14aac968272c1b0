import type { ToolCall, TranscriptMessage } from '../protocol/index.js';

/**
 * Puts the tool results after the last assistant message in the order the model made the calls
 * (results recorded before a crash and those of the calls run after it arrive in two groups).
 */
export function commitOrder(transcript: TranscriptMessage[]): void {
  const at = transcript.findLastIndex((m) => m.role === 'assistant');
  const step = transcript[at];
  if (step?.role !== 'assistant') return;
  const order = new Map(step.tool_calls.map((call, i) => [call.id, i]));
  const rank = (m: TranscriptMessage): number =>
    m.role === 'tool' ? (order.get(m.id) ?? order.size) : order.size;
  const tail = transcript.slice(at + 1).sort((a, b) => rank(a) - rank(b));
  transcript.splice(at + 1, tail.length, ...tail);
}

/**
 * The step a recorded transcript ends in, when the model had answered it: the assistant message,
 * its index, and its tool calls that have no recorded result.
 */
export function interruptedStep(
  transcript: readonly TranscriptMessage[],
):
  | { at: number; step: Extract<TranscriptMessage, { role: 'assistant' }>; pending: ToolCall[] }
  | undefined {
  const at = transcript.findLastIndex((m) => m.role === 'assistant');
  const step = transcript[at];
  if (step?.role !== 'assistant') return undefined;
  const answered = new Set(
    transcript.slice(at + 1).flatMap((m) => (m.role === 'tool' ? [m.id] : [])),
  );
  return { at, step, pending: step.tool_calls.filter((call) => !answered.has(call.id)) };
}
