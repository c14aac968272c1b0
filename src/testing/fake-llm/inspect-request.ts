import type { z } from 'zod';
import { formatIssues, type Dialect } from '../../protocol/index.js';
import { AnthropicRequestSchema, OpenAiRequestSchema } from '../../intel/index.js';
import { inspectResponses } from './responses-inspect.js';

/** What the fake server needs to know about a request to pick its answer. */
export interface InspectedRequest {
  dialect: Dialect;
  model: string;
  stream: boolean;
  /** Whether an OpenAI streamed answer should end with a usage chunk. */
  includeUsage: boolean;
  /** The system prompt and the text of each system and user message: what `contains` searches. */
  texts: string[];
  /** Tool results in the conversation: the step index. */
  toolResults: number;
}

export type Inspection = { ok: true; request: InspectedRequest } | { ok: false; reason: string };

function partsText(content: string | readonly { type: string; text?: unknown }[]): string {
  if (typeof content === 'string') return content;
  return content
    .filter((part) => part.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text as string)
    .join('');
}

function invalid(error: z.ZodError): Inspection {
  return { ok: false, reason: formatIssues(error.issues) };
}

function inspectOpenAi(body: unknown): Inspection {
  const parsed = OpenAiRequestSchema.safeParse(body, { reportInput: true });
  if (!parsed.success) return invalid(parsed.error);
  const { model, messages, stream, stream_options } = parsed.data;
  const texts: string[] = [];
  let toolResults = 0;
  for (const message of messages) {
    if (message.role === 'tool') toolResults += 1;
    else if (message.role !== 'assistant') texts.push(partsText(message.content));
  }
  return {
    ok: true,
    request: {
      dialect: 'openai',
      model,
      stream: stream === true,
      includeUsage: stream_options?.include_usage === true,
      texts,
      toolResults,
    },
  };
}

function inspectAnthropic(body: unknown): Inspection {
  const parsed = AnthropicRequestSchema.safeParse(body, { reportInput: true });
  if (!parsed.success) return invalid(parsed.error);
  const { model, system, messages, stream } = parsed.data;
  const texts = system === undefined ? [] : [partsText(system)];
  let toolResults = 0;
  for (const message of messages) {
    const blocks = typeof message.content === 'string' ? [] : message.content;
    toolResults += blocks.filter((block) => block.type === 'tool_result').length;
    if (message.role === 'user') texts.push(partsText(message.content));
  }
  return {
    ok: true,
    request: {
      dialect: 'anthropic',
      model,
      stream: stream === true,
      includeUsage: true,
      texts,
      toolResults,
    },
  };
}

/** Validates a request body in its dialect's shape and extracts what scripts match on. */
export function inspectRequest(dialect: Dialect, body: unknown): Inspection {
  switch (dialect) {
    case 'openai':
      return inspectOpenAi(body);
    case 'anthropic':
      return inspectAnthropic(body);
    case 'openai-responses':
      return inspectResponses(body);
  }
}
