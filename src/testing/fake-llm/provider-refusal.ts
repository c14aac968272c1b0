import type { Dialect } from '../../protocol/index.js';
import type { AnthropicRules } from './anthropic-rules.js';
import { openAiRefusal } from './openai-rules.js';
import type { ResponsesRules } from './responses-rules.js';

/** A request the provider would refuse before answering: its status, message and error body. */
interface ProviderRefusal {
  status: number;
  message: string;
  /** The provider's own error body; absent when the dialect's usual one is built from `message`. */
  body?: unknown;
}

/**
 * What the provider each dialect plays refuses before any script is consulted: OpenAI's reasoning
 * models' unsupported parameters, Anthropic's thinking and cache limits and dropped or altered
 * thinking, the Responses API's missing or altered encrypted reasoning. Called on a body that has
 * passed the dialect's inspection.
 */
export function providerRefusal(
  rules: { anthropic: AnthropicRules; responses: ResponsesRules },
  dialect: Dialect,
  body: unknown,
): ProviderRefusal | undefined {
  switch (dialect) {
    case 'openai': {
      const refused = openAiRefusal(body);
      return refused === undefined
        ? undefined
        : { status: 400, message: refused.error.message, body: refused };
    }
    case 'anthropic': {
      const message = rules.anthropic.refusal(body);
      return message === undefined ? undefined : { status: 400, message };
    }
    case 'openai-responses': {
      const refused = rules.responses.refuse(body);
      return refused === undefined
        ? undefined
        : { status: refused.status, message: refused.body.error.message, body: refused.body };
    }
  }
}
