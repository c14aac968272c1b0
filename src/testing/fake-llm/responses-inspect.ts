import { formatIssues } from '../../protocol/index.js';
import { ResponsesRequestSchema } from '../../intel/index.js';
import type { Inspection } from './inspect-request.js';

function contentText(content: string | readonly { type: string; text?: unknown }[]): string {
  if (typeof content === 'string') return content;
  return content
    .filter((part) => typeof part.text === 'string')
    .map((part) => part.text as string)
    .join('');
}

/**
 * Validates a `POST /responses` body and extracts what scripts match on: the instructions and the
 * text of every user, system and developer message (`contains`), and the `function_call_output`
 * items (the step index).
 */
export function inspectResponses(body: unknown): Inspection {
  const parsed = ResponsesRequestSchema.safeParse(body, { reportInput: true });
  if (!parsed.success) return { ok: false, reason: formatIssues(parsed.error.issues) };
  const { model, instructions, input, stream } = parsed.data;
  const texts = instructions === undefined || instructions === null ? [] : [instructions];
  let toolResults = 0;
  for (const item of typeof input === 'string' ? [] : input) {
    if (item.type === 'function_call_output') toolResults += 1;
    else if ((item.type === undefined || item.type === 'message') && item.role !== 'assistant')
      texts.push(contentText(item.content));
  }
  if (typeof input === 'string') texts.push(input);
  return {
    ok: true,
    request: {
      dialect: 'openai-responses',
      model,
      stream: stream === true,
      includeUsage: true,
      texts,
      toolResults,
    },
  };
}
