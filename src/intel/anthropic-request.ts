import type { TranscriptMessage } from '../protocol/index.js';
import type { AnthropicBlock, AnthropicMessage, AnthropicRequest } from './anthropic-wire.js';
import type { DialectCall } from './dialect.js';
import type { ModelRequest } from './model.js';
import { toolResultText } from './render-tool-result.js';
import { toWireToolName } from './wire-names.js';

/** `max_tokens` is required by the messages API; this is used when sampling sets no bound. */
const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

const TOOL_CHOICE = { auto: 'auto', required: 'any', none: 'none' } as const;

type Role = AnthropicMessage['role'];

function toBlocks(message: Exclude<TranscriptMessage, { role: 'system' | 'note' }>): {
  role: Role;
  blocks: AnthropicBlock[];
} {
  switch (message.role) {
    case 'user':
      return { role: 'user', blocks: [{ type: 'text', text: message.text }] };
    case 'assistant': {
      const blocks: AnthropicBlock[] = [];
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
function toAnthropicMessages(messages: ModelRequest['messages']): AnthropicMessage[] {
  const out: { role: Role; blocks: AnthropicBlock[] }[] = [];
  for (const message of messages) {
    if (message.role === 'system' || message.role === 'note') continue;
    const next = toBlocks(message);
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

/** The body of `POST /messages` for one call. */
export function buildAnthropicRequest(call: DialectCall): AnthropicRequest {
  const { request, sampling } = call;
  const system = systemText(request);
  const tools = request.tools ?? [];
  return {
    model: call.model,
    max_tokens: sampling.max_output_tokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
    ...(system === '' ? {} : { system }),
    messages: toAnthropicMessages(request.messages),
    ...(tools.length > 0
      ? {
          tools: tools.map((tool) => ({
            name: toWireToolName(tool.name),
            description: tool.description,
            input_schema: tool.input_schema,
          })),
          tool_choice: { type: TOOL_CHOICE[request.toolChoice ?? 'auto'] },
        }
      : {}),
    ...(sampling.temperature === undefined ? {} : { temperature: sampling.temperature }),
    ...(sampling.top_p === undefined ? {} : { top_p: sampling.top_p }),
    ...(sampling.stop === undefined || sampling.stop.length === 0
      ? {}
      : { stop_sequences: sampling.stop }),
    ...(call.stream ? { stream: true } : {}),
  };
}
