import type { TranscriptMessage } from '../protocol/index.js';
import { cacheControlOf, withCacheBreakpoints } from './anthropic-cache.js';
import { reasoningBlocks, thinkingParams } from './anthropic-thinking.js';
import type {
  AnthropicSentBlock,
  AnthropicSentMessage,
  AnthropicSentRequest,
} from './anthropic-wire.js';
import type { DialectCall } from './dialect.js';
import type { ModelRequest } from './model.js';
import { toolResultText } from './render-tool-result.js';
import { toWireToolName } from './wire-names.js';

const TOOL_CHOICE = { auto: 'auto', required: 'any', none: 'none' } as const;

type Role = AnthropicSentMessage['role'];

function toBlocks(
  message: Exclude<TranscriptMessage, { role: 'system' | 'note' }>,
  model: string,
): {
  role: Role;
  blocks: AnthropicSentBlock[];
} {
  switch (message.role) {
    case 'user':
      return { role: 'user', blocks: [{ type: 'text', text: message.text }] };
    case 'assistant': {
      // Thinking first, as the model wrote it, then what it said and the tools it called.
      const blocks: AnthropicSentBlock[] = reasoningBlocks(message.reasoning, model);
      // The API rejects empty text blocks.
      if (message.text !== undefined && message.text !== '') {
        blocks.push({ type: 'text', text: message.text });
      }
      for (const call of message.tool_calls) {
        blocks.push({
          type: 'tool_use',
          id: call.id,
          name: toWireToolName(call.name),
          input: call.args,
        });
      }
      return { role: 'assistant', blocks };
    }
    case 'tool':
      return {
        role: 'user',
        blocks: [
          {
            type: 'tool_result',
            tool_use_id: message.id,
            content: toolResultText(message.content),
            ...(message.is_error ? { is_error: true } : {}),
          },
        ],
      };
  }
}

/**
 * The messages of one call. Consecutive messages of the same role are merged into one message of
 * several blocks: the tool results answering one assistant turn must all sit in the single user
 * message that follows it.
 */
function toAnthropicMessages(
  messages: ModelRequest['messages'],
  model: string,
): AnthropicSentMessage[] {
  const out: { role: Role; blocks: AnthropicSentBlock[] }[] = [];
  for (const message of messages) {
    if (message.role === 'system' || message.role === 'note') continue;
    const next = toBlocks(message, model);
    if (next.blocks.length === 0) continue;
    const last = out.at(-1);
    if (last?.role === next.role) last.blocks.push(...next.blocks);
    else out.push(next);
  }
  return out.map(({ role, blocks }) => ({ role, content: blocks }));
}

/**
 * The system prompt: the request's, then every `system` and `note` message of the transcript in
 * order. The messages API has no system role inside the conversation.
 */
function systemText(request: ModelRequest): string {
  const parts = [request.system ?? ''];
  for (const message of request.messages) {
    if (message.role === 'system' || message.role === 'note') parts.push(message.text);
  }
  return parts.filter((part) => part !== '').join('\n\n');
}

/**
 * The body of `POST /messages` for one call: the conversation, its tools, sampling, extended
 * thinking when a budget is set (see `thinkingParams`), and prompt-cache breakpoints unless the
 * endpoint turns caching off (see `withCacheBreakpoints`).
 */
export function buildAnthropicRequest(call: DialectCall): AnthropicSentRequest {
  const { request, sampling } = call;
  const system = systemText(request);
  const tools = request.tools ?? [];
  const thinking = thinkingParams(sampling, request, call.model);
  const body: AnthropicSentRequest = {
    model: call.model,
    max_tokens: thinking.max_tokens,
    ...(system === '' ? {} : { system }),
    messages: toAnthropicMessages(request.messages, call.model),
    ...(tools.length > 0
      ? {
          tools: tools.map((tool) => ({
            name: toWireToolName(tool.name),
            description: tool.description,
            // The API takes object schemas only; an MCP tool's schema always is one.
            input_schema: { ...tool.input_schema, type: 'object' as const },
          })),
          tool_choice: { type: TOOL_CHOICE[request.toolChoice ?? 'auto'] },
        }
      : {}),
    ...(thinking.thinking === undefined ? {} : { thinking: thinking.thinking }),
    ...(sampling.temperature === undefined || !thinking.allowsTemperature
      ? {}
      : { temperature: sampling.temperature }),
    ...(sampling.top_p === undefined || !thinking.allowsTopP ? {} : { top_p: sampling.top_p }),
    ...(sampling.stop === undefined || sampling.stop.length === 0
      ? {}
      : { stop_sequences: sampling.stop }),
    ...(call.stream ? { stream: true } : {}),
  };
  const marker = cacheControlOf(call.endpoint);
  return marker === undefined ? body : withCacheBreakpoints(body, marker);
}
