import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { AnthropicRequestSchema } from '../../intel/index.js';
import { FakePromptCache } from './anthropic-prompt-cache.js';
import type { InspectedRequest } from './inspect-request.js';
import type { Playbook, Step } from './playbook.js';

const DOCS = 'https://docs.claude.com/en/docs/build-with-claude/extended-thinking';
/** Anthropic's documented test string: a request holding it is answered with redacted thinking. */
export const REDACTED_THINKING_TRIGGER =
  'ANTHROPIC_MAGIC_STRING_TRIGGER_REDACTED_THINKING_46C9A13E193C177646C7398A98432ECCCE4C1253';
/** Below this many tokens a prefix is not cached (Anthropic's minimum for its larger models). */
const DEFAULT_CACHE_MIN_TOKENS = 1024;
const MAX_BREAKPOINTS = 4;
const MIN_BUDGET = 1024;

type Body = ReturnType<typeof AnthropicRequestSchema.parse>;

/** The thinking block an answer opens with, when the request enabled thinking. */
type FakeThinkingBlock =
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string };

/** What the Anthropic rules add to a scripted answer: thinking, and the cache's part of usage. */
export interface AnthropicExtras {
  thinking?: FakeThinkingBlock;
  cache: { read: number; write5m: number; write1h: number };
}

/**
 * What the fake server enforces and adds for Anthropic messages, as Anthropic documents them:
 * extended thinking (a signed thinking block before the answer; a tool-use turn sent back without
 * its thinking, or with it altered, refused) and prompt caching (see `FakePromptCache`). The
 * signature is an HMAC of the thinking text under a secret of this server, so the fake can tell a
 * block it wrote from one that was changed.
 */
export class AnthropicRules {
  readonly #secret = randomBytes(32);
  readonly #cache = new FakePromptCache();

  /** Why the API would refuse this request (its 400 message), or `undefined`. */
  refusal(value: unknown): string | undefined {
    const body = AnthropicRequestSchema.parse(value);
    return limitRefusal(body) ?? this.#signatureRefusal(body) ?? missingThinking(body);
  }

  /** The thinking block and the cache accounting of one answered request. */
  extras(
    value: unknown,
    texts: readonly string[],
    thinkingText: string,
    minTokens: number,
  ): AnthropicExtras {
    const body = AnthropicRequestSchema.parse(value);
    const cache = this.#cache.account(body, minTokens, Date.now());
    if (body.thinking?.type !== 'enabled') return { cache };
    if (texts.some((text) => text.includes(REDACTED_THINKING_TRIGGER))) {
      const nonce = randomBytes(24).toString('base64');
      return {
        cache,
        thinking: {
          type: 'redacted_thinking',
          data: `${nonce}.${this.#sign(`redacted:${nonce}`)}`,
        },
      };
    }
    return {
      cache,
      thinking: { type: 'thinking', thinking: thinkingText, signature: this.#sign(thinkingText) },
    };
  }

  #sign(text: string): string {
    return createHmac('sha256', this.#secret).update(text).digest('base64');
  }

  #verifies(text: string, signature: unknown): boolean {
    if (typeof signature !== 'string') return false;
    const expected = Buffer.from(this.#sign(text));
    const given = Buffer.from(signature);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }

  /** Every thinking block sent back must be one this server signed, unaltered. */
  #signatureRefusal(body: Body): string | undefined {
    for (const [m, message] of body.messages.entries()) {
      if (typeof message.content === 'string') continue;
      for (const [b, block] of message.content.entries()) {
        const where = `messages.${m}.content.${b}`;
        if (block.type === 'thinking') {
          const { thinking, signature } = block as { thinking: string; signature: string };
          if (!this.#verifies(thinking, signature))
            return `${where}: Invalid \`signature\` in \`thinking\` block`;
        }
        if (block.type === 'redacted_thinking') {
          const [nonce = '', signature] = (block as { data: string }).data.split('.');
          if (!this.#verifies(`redacted:${nonce}`, signature))
            return `${where}: Invalid \`data\` in \`redacted_thinking\` block`;
        }
      }
    }
    return undefined;
  }
}

/** The request-level limits: the thinking budget, the output cap, sampling, breakpoints. */
function limitRefusal(body: Body): string | undefined {
  const breakpoints = countBreakpoints(body);
  if (breakpoints > MAX_BREAKPOINTS)
    return `A maximum of ${MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${breakpoints}.`;
  if (body.thinking?.type !== 'enabled') return undefined;
  const budget = body.thinking.budget_tokens;
  if (budget < MIN_BUDGET)
    return `thinking.enabled.budget_tokens: Input should be greater than or equal to ${MIN_BUDGET}`;
  if (body.max_tokens <= budget)
    return `\`max_tokens\` must be greater than \`thinking.budget_tokens\`. Please consult our documentation at ${DOCS}#max-tokens-and-context-window-size`;
  if (body.temperature !== undefined && body.temperature !== 1)
    return `\`temperature\` may only be set to 1 when thinking is enabled or in interleaved thinking mode. Please consult our documentation at ${DOCS}#feature-compatibility`;
  const choice = body.tool_choice?.type;
  if (choice === 'any' || choice === 'tool')
    return 'Thinking may not be enabled when tool_choice forces tool use.';
  return undefined;
}

/**
 * With thinking on, the last assistant message of a tool-use turn (its `tool_use` answered by the
 * `tool_result`s that follow) must start with its thinking block, as the model wrote it.
 */
function missingThinking(body: Body): string | undefined {
  if (body.thinking?.type !== 'enabled') return undefined;
  const at = body.messages.findLastIndex((message) => message.role === 'assistant');
  const last = body.messages[at];
  if (last === undefined || typeof last.content === 'string') return undefined;
  if (!last.content.some((block) => block.type === 'tool_use')) return undefined;
  const first = last.content[0]?.type;
  if (first === 'thinking' || first === 'redacted_thinking') return undefined;
  return `messages.${at}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${first ?? 'nothing'}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at ${DOCS}`;
}

/** Blocks and tool definitions that carry `cache_control`. */
function countBreakpoints(body: Body): number {
  const items: object[] = [
    ...(body.tools ?? []),
    ...(typeof body.system === 'object' ? body.system : []),
    ...body.messages.flatMap((message) =>
      typeof message.content === 'string' ? [] : message.content,
    ),
  ];
  return items.filter((item) => 'cache_control' in item && item.cache_control !== undefined).length;
}

/** The extras of one answered Anthropic request, from the playbook's step and settings. */
export function anthropicExtras(
  state: { readonly anthropic: AnthropicRules; readonly playbook: Playbook },
  step: Step,
  request: InspectedRequest,
  body: unknown,
): AnthropicExtras {
  const thinking =
    step.thinking ??
    `Thinking before answering (request with ${request.toolResults} tool results).`;
  const minTokens = state.playbook.prompt_cache?.min_tokens ?? DEFAULT_CACHE_MIN_TOKENS;
  return state.anthropic.extras(body, request.texts, thinking, minTokens);
}
