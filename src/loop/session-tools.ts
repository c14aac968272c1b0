import type { ModelToolCall } from '../intel/model.js';
import type { Finish, ToolCall, TranscriptMessage } from '../protocol/index.js';
import { FINISH_TOOL_NAME, readFinish } from './finish-tool.js';
import type { SessionOptions } from './session-types.js';
import { runToolRound } from './tool-round.js';

/** Where the session stands when a round of tool calls starts. */
export interface RoundState {
  /** The session's transcript, ending with the assistant message that made the calls. */
  transcript: readonly TranscriptMessage[];
  /** The model call (step) the calls came from. */
  step: number;
  /** Whether the session handles `finish` itself (no tool of that name shadows it). */
  offersFinish: boolean;
}

/**
 * Runs one round of a session's tool calls: calls whose arguments were not a JSON object are
 * answered with an error to correct, `finish` is read (the first valid one wins, acted on after
 * the whole round), and every other call goes to the session's tools with its idempotency key and
 * trace context. Results are reported as they complete; they come back in call order.
 */
export async function runSessionTools(
  options: SessionOptions,
  calls: readonly ModelToolCall[],
  signal: AbortSignal,
  state: RoundState,
): Promise<{ results: TranscriptMessage[]; finish: Finish | undefined }> {
  const { hooks, tools, logContent, identity } = options;
  let finish: Finish | undefined;
  const finishHost = {
    definitions: () => tools.definitions(),
    call: async (call: ToolCall, context: Parameters<typeof tools.call>[1]) => {
      const argsError = calls.find((c) => c.id === call.id)?.argsError;
      if (argsError !== undefined) {
        return {
          content: `The arguments for \`${call.name}\` are not a JSON object (${argsError}); call it again with valid arguments.`,
          isError: true,
        };
      }
      if (call.name !== FINISH_TOOL_NAME || !state.offersFinish) return tools.call(call, context);
      const read = readFinish(call.args);
      if (typeof read === 'string') return { content: read, isError: true };
      finish ??= read;
      return { content: 'Finished.', isError: false };
    },
  };
  // What a fork would inherit: the transcript before the step that delegates.
  const before = state.transcript.slice(
    0,
    state.transcript.findLastIndex((m) => m.role === 'assistant'),
  );
  const results = await runToolRound(calls, finishHost, signal, {
    onEvent: (event) => hooks?.onEvent?.(event),
    logContent: logContent === true,
    now: options.now ?? (() => Date.now()),
    onResult: (message) => hooks?.onTranscript?.({ op: 'append', message }),
    contextFor: (_call, index) => ({
      history: () => before,
      ...(identity === undefined
        ? {}
        : {
            meta: {
              runId: identity.runId,
              nodeId: identity.nodeId,
              idempotencyKey: `${identity.runId}/${identity.nodeId}#${state.step}.${index}`,
              ...(identity.traceparent === undefined ? {} : { traceparent: identity.traceparent }),
            },
          }),
    }),
  });
  return { results, finish };
}
