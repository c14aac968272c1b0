import { JsonObjectSchema } from '../protocol/index.js';
import { decodeJson } from './decode-json.js';
import type { ModelToolCall } from './model.js';

const EXCERPT_CHARS = 60;

/**
 * Builds a tool call from the arguments text the model wrote. Arguments that are not a JSON
 * object are the model's mistake, not the endpoint's: the call is kept with `args: {}` and an
 * `argsError` the loop can send back, rather than failing the whole model call.
 */
export function toolCallFromText(id: string, name: string, argsText: string): ModelToolCall {
  // Some servers send an empty string for a call without arguments.
  if (argsText.trim() === '') return { id, name, args: {} };
  const decoded = decodeJson(argsText);
  if (decoded.ok) {
    const parsed = JsonObjectSchema.safeParse(decoded.value);
    if (parsed.success && !Array.isArray(decoded.value)) return { id, name, args: parsed.data };
  }
  const excerpt =
    argsText.length > EXCERPT_CHARS ? `${argsText.slice(0, EXCERPT_CHARS)}…` : argsText;
  return {
    id,
    name,
    args: {},
    argsError: `Expected the arguments of \`${name}\` to be a JSON object, got \`${excerpt}\`.`,
  };
}
