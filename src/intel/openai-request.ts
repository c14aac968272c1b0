import type { Endpoint, TranscriptMessage } from '../protocol/index.js';
import type { DialectCall } from './dialect.js';
import type { OpenAiMessage, OpenAiRequest } from './openai-wire.js';
import { toolResultText } from './render-tool-result.js';
import { toWireToolName } from './wire-names.js';

// The builders' return types are inferred (and checked with `satisfies` against the wire schema's
// types) rather than declared as `OpenAiRequest`: the schema is wide enough to read any client's
// request in the fake LLM, while the inferred types say exactly what arbor sends, which
// test/intel/sdk-types-openai-chat.test.ts checks against the official SDK's request types.

function toOpenAiMessage(message: TranscriptMessage) {
  switch (message.role) {
    case 'system':
    case 'note':
      // Notes stay where they happened: OpenAI accepts system messages anywhere.
      return { role: 'system', content: message.text } satisfies OpenAiMessage;
    case 'user':
      return { role: 'user', content: message.text } satisfies OpenAiMessage;
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
      } satisfies OpenAiMessage;
    }
    case 'tool': {
      // OpenAI's wire has no error flag for tool results, so the text says it.
      const text = toolResultText(message.content);
      return {
        role: 'tool',
        tool_call_id: message.id,
        content: message.is_error ? `Error: ${text}` : text,
      } satisfies OpenAiMessage;
    }
  }
}

type OpenAiOutgoingMessage = ReturnType<typeof toOpenAiMessage>;

/** The field an output cap can go in: OpenAI's current one, or the one every server knows. */
export type OutputCapField = NonNullable<Endpoint['max_tokens_field']>;

/** The output cap in the field it goes in. */
function outputCap(field: OutputCapField, tokens: number) {
  return field === 'max_tokens' ? { max_tokens: tokens } : { max_completion_tokens: tokens };
}

/** Host suffixes of Azure OpenAI resources, whose reasoning deployments refuse `max_tokens` too. */
const AZURE_OPENAI_SUFFIXES = [
  '.openai.azure.com',
  '.cognitiveservices.azure.com',
  '.services.ai.azure.com',
] as const;

/**
 * The field the output cap is sent in: the endpoint's `max_tokens_field` when set; else
 * `max_completion_tokens` for OpenAI's own API and Azure OpenAI (their reasoning models refuse
 * `max_tokens`, and every model of theirs takes the newer field), and `max_tokens` for any other
 * OpenAI-compatible server (vLLM, Ollama, llama.cpp and most proxies know only that one).
 */
export function outputCapField(
  endpoint: Pick<Endpoint, 'url' | 'max_tokens_field'>,
): OutputCapField {
  if (endpoint.max_tokens_field !== undefined) return endpoint.max_tokens_field;
  // A fully qualified name may end in a dot (`api.openai.com.`); URL keeps it.
  const host = new URL(endpoint.url).hostname.replace(/\.$/, '');
  // OpenAI's data-residency hosts (`eu.api.openai.com`, `us.api.openai.com`) are OpenAI's own.
  const isOpenAi =
    host === 'api.openai.com' ||
    host.endsWith('.api.openai.com') ||
    AZURE_OPENAI_SUFFIXES.some((suffix) => host.endsWith(suffix));
  return isOpenAi ? 'max_completion_tokens' : 'max_tokens';
}

/** The body of `POST /chat/completions` for one call. */
export function buildOpenAiRequest(call: DialectCall) {
  const { request, sampling } = call;
  const messages: OpenAiOutgoingMessage[] = [];
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
    // Sent as configured, for reasoning models too: which of them take temperature and top_p
    // depends on the model, its version and the effort (GPT-5.1 at `none` does, o3 does not), so
    // the provider judges and a refusal comes back with its message (docs/intelligence.md).
    ...(sampling.temperature === undefined ? {} : { temperature: sampling.temperature }),
    ...(sampling.top_p === undefined ? {} : { top_p: sampling.top_p }),
    ...(sampling.max_output_tokens === undefined
      ? {}
      : outputCap(outputCapField(call.endpoint), sampling.max_output_tokens)),
    ...(sampling.stop === undefined || sampling.stop.length === 0 ? {} : { stop: sampling.stop }),
    ...(sampling.seed === undefined ? {} : { seed: sampling.seed }),
    ...(sampling.reasoning_effort === undefined
      ? {}
      : { reasoning_effort: sampling.reasoning_effort }),
    ...(call.stream ? ({ stream: true, stream_options: { include_usage: true } } as const) : {}),
  } satisfies OpenAiRequest;
}
