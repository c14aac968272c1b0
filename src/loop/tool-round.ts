import type { ChildEvent, ToolCall, TranscriptMessage } from '../protocol/index.js';
import type { ToolCallContext, ToolHost, ToolOutput } from '../tools/index.js';

export interface RoundHooks {
  onEvent(event: ChildEvent): void;
  logContent: boolean;
  now(): number;
  /** A call's result, the moment the call ends (before the round is committed). */
  onResult?(message: TranscriptMessage): void;
  /** The context each call runs with (its metadata, the history a fork would inherit). */
  contextFor(call: ToolCall, index: number): Omit<ToolCallContext, 'signal' | 'callId'>;
}

/**
 * Runs one round of tool calls. Calls run concurrently; their results are committed in the order
 * the model made them, so the transcript reads the same however the calls raced.
 */
export async function runToolRound(
  calls: readonly ToolCall[],
  tools: ToolHost,
  signal: AbortSignal,
  hooks: RoundHooks,
): Promise<TranscriptMessage[]> {
  const outputs = await Promise.all(
    calls.map(async (call, index): Promise<ToolOutput> => {
      const started = hooks.now();
      hooks.onEvent({
        type: 'tool.call',
        id: call.id,
        name: call.name,
        ...(hooks.logContent ? { args: call.args } : {}),
      });
      const output = await tools.call(call, {
        ...hooks.contextFor(call, index),
        signal,
        callId: call.id,
      });
      hooks.onResult?.(toolMessage(call, output, hooks.now()));
      hooks.onEvent({
        type: 'tool.result',
        id: call.id,
        name: call.name,
        isError: output.isError,
        // arbor refused it before the tool ran (a caveat, a policy, the call limit).
        ...(output.refused === true ? { refused: true } : {}),
        ms: hooks.now() - started,
        ...(hooks.logContent ? { content: output.content } : {}),
      });
      return output;
    }),
  );
  return calls.map((call, i) => toolMessage(call, outputs[i], hooks.now()));
}

function toolMessage(
  call: ToolCall,
  output: ToolOutput | undefined,
  ts: number,
): TranscriptMessage {
  return {
    role: 'tool',
    id: call.id,
    name: call.name,
    content: output?.content ?? null,
    is_error: output?.isError ?? true,
    ts,
  };
}
