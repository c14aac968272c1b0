import type { TranscriptMessage } from '../protocol/index.js';
import type { DialectCall } from './dialect.js';
import type { OpenAiMessage, OpenAiRequest } from './openai-wire.js';
import { toolResultText } from './render-tool-result.js';
import { toWireToolName } from './wire-names.js';

function toOpenAiMessage(message: TranscriptMessage): OpenAiMessage {
  switch (message.role) {
    case 'system':
    case 'note':
      // Notes stay where they happened: OpenAI accepts system messages anywhere.
      return { role: 'system', content: message.text };
    case 'user':
      return { role: 'user', content: message.text };
    case 'assistant': {
      const hasCalls = message.tool_calls.length > 0;
      return {
        role: 'assistant',
        content: message.text ?? (hasCalls ? null : ''),
        ...(hasCalls
          ? {
              tool_calls: message.tool_calls.map((call) => ({
                id: call.id,
                type: 'function' as const,
                function: { name: toWireToolName(call.name), arguments: JSON.stringify(call.args) },
              })),
            }
          : {}),
      };
    }
    case 'tool': {
      // OpenAI's wire has no error flag for tool results, so the text says it.
      const text = toolResultText(message.content);
      return {
        role: 'tool',
        tool_call_id: message.id,
        content: message.is_error ? `Error: ${text}` : text,
      };
    }
  }
}

/** The body of `POST /chat/completions` for one call. */
export function buildOpenAiRequest(call: DialectCall): OpenAiRequest {
  const { request, sampling } = call;
  const messages: OpenAiMessage[] = [];
  if (request.system !== undefined && request.system !== '') {
    messages.push({ role: 'system', content: request.system });
  }
  for (const message of request.messages) messages.push(toOpenAiMessage(message));
  const tools = request.tools ?? [];
  return {
    model: call.model,
    messages,
    ...(tools.length > 0
      ? {
          tools: tools.map((tool) => ({
            type: 'function' as const,
            function: {
              name: toWireToolName(tool.name),
              description: tool.description,
              parameters: tool.input_schema,
            },
          })),
          tool_choice: request.toolChoice ?? 'auto',
        }
      : {}),
    ...(sampling.temperature === undefined ? {} : { temperature: sampling.temperature }),
    ...(sampling.top_p === undefined ? {} : { top_p: sampling.top_p }),
    // `max_tokens` rather than `max_completion_tokens`: every OpenAI-compatible server knows it.
    ...(sampling.max_output_tokens === undefined ? {} : { max_tokens: sampling.max_output_tokens }),
    ...(sampling.stop === undefined || sampling.stop.length === 0 ? {} : { stop: sampling.stop }),
    ...(sampling.seed === undefined ? {} : { seed: sampling.seed }),
    ...(call.stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  };
}
