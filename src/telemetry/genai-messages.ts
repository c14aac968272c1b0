import type { TranscriptMessage } from '../protocol/index.js';

/**
 * Transcript messages in the GenAI conventions' message shape (`gen_ai.input.messages`,
 * `gen_ai.output.messages`, `gen_ai.system_instructions`: a role and its parts). A message's
 * `reasoning` (thinking blocks, encrypted reasoning) is never carried over: it is the provider's
 * opaque data, kept for the provider alone.
 */

/** One part of a message, as the conventions' JSON schemas define it. */
export type GenAiPart =
  | { type: 'text'; content: string }
  | { type: 'tool_call'; id: string; name: string; arguments: unknown }
  | { type: 'tool_call_response'; id: string; response: unknown };

/** One message of `gen_ai.input.messages` (and, with a `finish_reason`, of the output). */
export interface GenAiMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  parts: GenAiPart[];
  name?: string;
  finish_reason?: string;
}

/** The conventions' finish reasons, from arbor's (`tool_calls` is `tool_call` there). */
const FINISH_REASONS: Record<string, string> = { tool_calls: 'tool_call' };

/** The messages a model call was sent, in order. */
export function inputMessages(messages: readonly TranscriptMessage[]): GenAiMessage[] {
  return messages.map(genAiMessage);
}

/** The answer a model call gave, with why it stopped. */
export function outputMessages(answer: TranscriptMessage, finishReason: string): GenAiMessage[] {
  return [{ ...genAiMessage(answer), finish_reason: FINISH_REASONS[finishReason] ?? finishReason }];
}

/** A system prompt as `gen_ai.system_instructions`: a list of parts. */
export function systemInstructions(system: string): GenAiPart[] {
  return [{ type: 'text', content: system }];
}

function genAiMessage(message: TranscriptMessage): GenAiMessage {
  switch (message.role) {
    case 'system':
    case 'note':
      // A runtime note reaches the model as a system message.
      return { role: 'system', parts: [{ type: 'text', content: message.text }] };
    case 'user':
      return {
        role: 'user',
        parts: [{ type: 'text', content: message.text }],
        ...(message.principal === undefined ? {} : { name: message.principal }),
      };
    case 'assistant':
      return {
        role: 'assistant',
        parts: [
          ...(message.text === undefined ? [] : [{ type: 'text' as const, content: message.text }]),
          ...message.tool_calls.map((call) => ({
            type: 'tool_call' as const,
            id: call.id,
            name: call.name,
            arguments: call.args,
          })),
        ],
      };
    case 'tool':
      return {
        role: 'tool',
        parts: [{ type: 'tool_call_response', id: message.id, response: message.content }],
      };
  }
}
