import type {
  OpenAiChunk,
  OpenAiErrorBody,
  OpenAiResponse,
  OpenAiUsage,
} from '../../intel/index.js';
import { argsChunks, textChunks, type ScriptedAnswer } from './scripted-answer.js';

/** Seconds since the epoch, as OpenAI's `created`. Fixed per answer, not per chunk. */
function created(): number {
  return Math.floor(Date.now() / 1000);
}

/** The answer's usage without details: what a server that is not OpenAI's may send. */
function usageOf(answer: ScriptedAnswer): OpenAiUsage {
  const { input_tokens, output_tokens } = answer.usage;
  return {
    prompt_tokens: input_tokens,
    completion_tokens: output_tokens,
    total_tokens: input_tokens + output_tokens,
  };
}

function finishReason(answer: ScriptedAnswer): string {
  return answer.toolCalls.length > 0 ? 'tool_calls' : 'stop';
}

/** An unstreamed chat completion, with `usage` as OpenAI's rules made it (openai-rules.ts). */
export function openAiCompletion(
  answer: ScriptedAnswer,
  usage: OpenAiUsage = usageOf(answer),
): OpenAiResponse {
  const hasCalls = answer.toolCalls.length > 0;
  return {
    id: `chatcmpl-${answer.seq}`,
    object: 'chat.completion',
    created: created(),
    model: answer.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: hasCalls && answer.text === '' ? null : answer.text,
          ...(hasCalls
            ? {
                tool_calls: answer.toolCalls.map((call) => ({
                  id: call.id,
                  type: 'function' as const,
                  function: { name: call.name, arguments: JSON.stringify(call.args) },
                })),
              }
            : {}),
        },
        finish_reason: finishReason(answer),
      },
    ],
    usage,
  };
}

/**
 * The `data:` events of a streamed completion, as OpenAI sends them: a role chunk, content
 * chunks, tool-call chunks (id and name first, then argument pieces), a finish chunk, a usage
 * chunk when `stream_options.include_usage` asked for one, then `[DONE]`.
 */
export function openAiStreamEvents(
  answer: ScriptedAnswer,
  includeUsage: boolean,
  usage: OpenAiUsage = usageOf(answer),
): string[] {
  const base = {
    id: `chatcmpl-${answer.seq}`,
    object: 'chat.completion.chunk',
    created: created(),
    model: answer.model,
  };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): OpenAiChunk => ({
    ...base,
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const chunks: OpenAiChunk[] = [chunk({ role: 'assistant', content: '' })];
  for (const piece of textChunks(answer.text, answer.chunkChars))
    chunks.push(chunk({ content: piece }));
  answer.toolCalls.forEach((call, index) => {
    chunks.push(
      chunk({
        tool_calls: [
          { index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } },
        ],
      }),
    );
    for (const piece of argsChunks(call.args)) {
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  chunks.push(chunk({}, finishReason(answer)));
  if (includeUsage) chunks.push({ ...base, choices: [], usage });
  return [...chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`), 'data: [DONE]\n\n'];
}

/** An error body in OpenAI's shape. */
export function openAiError(status: number, message: string): OpenAiErrorBody {
  const type =
    status >= 500 ? 'server_error' : status === 429 ? 'rate_limit_error' : 'invalid_request_error';
  return { error: { message, type, code: null } };
}
