import type { ReasoningTrace, TranscriptMessage } from '../protocol/index.js';
import type { DialectCall } from './dialect.js';
import { toolResultText } from './render-tool-result.js';
import { isSameModel, RESPONSES_DIALECT } from './responses-reasoning.js';
import {
  ReplayedReasoningSchema,
  type ReplayedReasoning,
  type ResponsesRequest,
} from './responses-wire.js';
import { toWireToolName } from './wire-names.js';

/** An input item as arbor writes it. */
type InputItem =
  | { type: 'message'; role: 'user' | 'assistant' | 'developer'; content: string }
  | { type: 'function_call'; call_id: string; name: string; arguments: string }
  | { type: 'function_call_output'; call_id: string; output: string }
  | ReplayedReasoning;

/**
 * OpenAI's reasoning families (o1, o3, o4-mini, GPT-5 and their snapshots, codex models). Only
 * they take `include: ["reasoning.encrypted_content"]`: other models refuse it ("Encrypted content
 * is not supported with this model"). `gpt-5-chat` is GPT-5's non-reasoning chat model.
 */
export function isOpenAiReasoningModel(model: string): boolean {
  return /^(?:o\d|gpt-5|codex)/i.test(model) && !/^gpt-5[\w.]*-chat/i.test(model);
}

/**
 * The reasoning items of an earlier assistant turn that this call may send back: only those of
 * the same dialect and model. After a failover, a degrade, a swap or a fork onto another model
 * they are dropped, as OpenAI documents (another model cannot read them).
 */
function replayable(trace: ReasoningTrace | undefined, model: string): ReplayedReasoning[] {
  if (trace?.dialect !== RESPONSES_DIALECT || !isSameModel(trace.model, model)) return [];
  // The items go as they came (verbatim, fields the schema does not name included), once checked.
  return trace.blocks.filter(
    (block): block is ReplayedReasoning => ReplayedReasoningSchema.safeParse(block).success,
  );
}

function toInputItems(message: TranscriptMessage, model: string): InputItem[] {
  switch (message.role) {
    case 'system':
    case 'note':
      // Notes stay where they happened, as developer messages (the role reasoning models heed).
      return [{ type: 'message', role: 'developer', content: message.text }];
    case 'user':
      return [{ type: 'message', role: 'user', content: message.text }];
    case 'assistant': {
      // The reasoning went before the calls it led to; the API wants it back in that place.
      const items: InputItem[] = replayable(message.reasoning, model);
      if (message.text !== undefined && message.text !== '') {
        items.push({ type: 'message', role: 'assistant', content: message.text });
      }
      for (const call of message.tool_calls) {
        items.push({
          type: 'function_call',
          call_id: call.id,
          name: toWireToolName(call.name),
          arguments: JSON.stringify(call.args),
        });
      }
      return items;
    }
    case 'tool': {
      // The wire has no error flag for a tool's output, so the text says it.
      const text = toolResultText(message.content);
      return [
        {
          type: 'function_call_output',
          call_id: message.id,
          output: message.is_error ? `Error: ${text}` : text,
        },
      ];
    }
  }
}

/**
 * The body of `POST /responses` for one call, stateless: `store: false`, the whole conversation
 * as `input` items every time (resume, replay and the fleet work from arbor's own transcript),
 * and for a reasoning model its encrypted reasoning asked for, to be sent back in later calls.
 */
export function buildResponsesRequest(call: DialectCall) {
  const { request, sampling, model } = call;
  const input = request.messages.flatMap((message) => toInputItems(message, model));
  const tools = request.tools ?? [];
  const reasons = isOpenAiReasoningModel(model) || sampling.reasoning_effort !== undefined;
  const body = {
    model,
    ...(request.system === undefined || request.system === ''
      ? {}
      : { instructions: request.system }),
    input,
    store: false,
    // What makes a stateless conversation's reasoning items replayable.
    ...(reasons ? { include: ['reasoning.encrypted_content' as const] } : {}),
    ...(tools.length > 0
      ? {
          tools: tools.map((tool) => ({
            type: 'function' as const,
            name: toWireToolName(tool.name),
            description: tool.description,
            parameters: tool.input_schema,
            // Strict mode rewrites what a schema allows (every property required, no extras);
            // arbor's tools validate their own arguments.
            strict: false,
          })),
          tool_choice: request.toolChoice ?? ('auto' as const),
        }
      : {}),
    ...(sampling.max_output_tokens === undefined
      ? {}
      : { max_output_tokens: sampling.max_output_tokens }),
    ...(sampling.temperature === undefined ? {} : { temperature: sampling.temperature }),
    ...(sampling.top_p === undefined ? {} : { top_p: sampling.top_p }),
    ...(sampling.reasoning_effort === undefined
      ? {}
      : { reasoning: { effort: sampling.reasoning_effort } }),
    ...(call.stream ? { stream: true as const } : {}),
  };
  return body satisfies ResponsesRequest;
}
