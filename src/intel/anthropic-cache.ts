import type { Endpoint } from '../protocol/index.js';
import {
  THINKING_BLOCK_TYPES,
  type AnthropicCacheControl,
  type AnthropicSentBlock,
  type AnthropicSentMessage,
  type AnthropicSentRequest,
} from './anthropic-wire.js';

/** The most `cache_control` breakpoints the messages API takes in one request. */
export const MAX_CACHE_BREAKPOINTS = 4;

/** The breakpoint marker of an endpoint's prompt cache, or `undefined` when caching is off. */
export function cacheControlOf(
  endpoint: Pick<Endpoint, 'prompt_cache'>,
): AnthropicCacheControl | undefined {
  const settings = endpoint.prompt_cache;
  if (settings?.enabled === false) return undefined;
  // Five minutes is the API's default: only an hour is spelt out.
  return settings?.ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
}

type Tools = NonNullable<AnthropicSentRequest['tools']>;

/**
 * The request with prompt-cache breakpoints, in the order the API reads a prompt (tools, system,
 * messages): on the last tool definition (the tools are cached together), on the system prompt,
 * sent as one text block, on the last block of the newest message, and on the last block of the
 * message that was newest one call ago (two messages up: the answer came between). The newest one
 * moves as the transcript grows, and the one before stays where the previous call wrote: the API
 * looks back only about 20 blocks from a breakpoint for a prefix it has cached, so a step with
 * many parallel tool calls (two blocks each) would otherwise lose the previous write and pay the
 * whole conversation again. Four breakpoints, the API's most. Thinking blocks are never marked.
 */
export function withCacheBreakpoints(
  body: AnthropicSentRequest,
  marker: AnthropicCacheControl,
): AnthropicSentRequest {
  const tools = markLastTool(body.tools, marker);
  const system = body.system;
  return {
    ...body,
    ...(tools === undefined ? {} : { tools }),
    ...(system === undefined || system === ''
      ? {}
      : {
          system:
            typeof system === 'string'
              ? [{ type: 'text' as const, text: system, cache_control: marker }]
              : markLast(system, marker),
        }),
    messages: markNewestMessage(body.messages, marker),
  };
}

function markLastTool(tools: Tools | undefined, marker: AnthropicCacheControl): Tools | undefined {
  if (tools === undefined || tools.length === 0) return tools;
  return tools.map((tool, index) =>
    index === tools.length - 1 ? { ...tool, cache_control: marker } : tool,
  );
}

/** Marks the last block that may carry a breakpoint (any but a thinking block). */
function markLast<B extends AnthropicSentBlock>(
  blocks: readonly B[],
  marker: AnthropicCacheControl,
): B[] {
  const at = blocks.findLastIndex((block) => !THINKING_BLOCK_TYPES.includes(block.type));
  return blocks.map((block, index) => (index === at ? { ...block, cache_control: marker } : block));
}

function markNewestMessage(
  messages: readonly AnthropicSentMessage[],
  marker: AnthropicCacheControl,
): AnthropicSentMessage[] {
  const last = messages.length - 1;
  return messages.map((message, index) => {
    if (index !== last && index !== last - 2) return message;
    const content =
      typeof message.content === 'string'
        ? [{ type: 'text' as const, text: message.content }]
        : message.content;
    return { ...message, content: markLast(content, marker) };
  });
}
