import type { ModelClient, ModelRequest, ModelResponse } from '../intel/model.js';
import { ArborError } from '../protocol/index.js';

/** What a streamed call tells its listener as it goes. */
export type AnswerDelta = { type: 'text'; text: string } | { type: 'reset'; reason: string };

/**
 * Makes one model call as a stream and returns the whole answer once it is complete. Text is
 * handed to `onDelta` as it arrives; a `reset` (the stream broke off and the client is making the
 * call again) is passed on so listeners drop what they were shown. Tool-call pieces are not
 * passed on: a tool call means nothing until its arguments are whole.
 */
export async function streamAnswer(
  model: ModelClient,
  request: ModelRequest,
  signal: AbortSignal,
  onDelta: (delta: AnswerDelta) => void,
): Promise<ModelResponse> {
  for await (const delta of model.stream(request, { signal })) {
    switch (delta.type) {
      case 'text':
        if (delta.text !== '') onDelta(delta);
        break;
      case 'reset':
        onDelta(delta);
        break;
      case 'done':
        return delta.response;
      case 'tool_call':
        break;
    }
  }
  throw new ArborError('intel_bad_response', 'The model stream ended without a complete answer.');
}
