import type { Dialect, ReasoningTrace } from '../protocol/index.js';
import { ReasoningItemSchema } from './responses-wire.js';

/** The dialect a Responses API reasoning trace is recorded under. */
export const RESPONSES_DIALECT: Dialect = 'openai-responses';

/** A dated snapshot suffix OpenAI appends to a model alias: `-2025-04-16`, `-0613`. */
const SNAPSHOT_SUFFIX = /^-(?:\d{4}-\d{2}-\d{2}|\d{4})$/;

/**
 * Whether reasoning recorded from `recorded` may go back to a call that asks for `asked`: the same
 * name, or the dated snapshot the server answered with for that alias (`o4-mini` is answered by
 * `o4-mini-2025-04-16`). `gpt-5` and `gpt-5-mini` are different models.
 */
export function isSameModel(recorded: string, asked: string): boolean {
  if (recorded === asked) return true;
  return recorded.startsWith(asked) && SNAPSHOT_SUFFIX.test(recorded.slice(asked.length));
}

/**
 * A `reasoning` item as it came, when it can be sent back: with its `encrypted_content`. An item
 * without it cannot go back into a stateless conversation (its id names an item the server did not
 * keep, and the API answers 404), so it is not kept. Throws nothing: the caller validated it.
 */
export function replayableReasoning(raw: unknown): unknown {
  const parsed = ReasoningItemSchema.safeParse(raw);
  if (!parsed.success) return undefined;
  const content = parsed.data.encrypted_content;
  return typeof content === 'string' && content !== '' ? raw : undefined;
}

/**
 * The trace of one answer's reasoning: its replayable `reasoning` items verbatim (the objects as
 * decoded from the server's JSON, key order and all), under the model that answered.
 */
export function reasoningTrace(
  items: readonly unknown[],
  model: string | undefined,
): ReasoningTrace | undefined {
  if (items.length === 0 || model === undefined) return undefined;
  return { dialect: RESPONSES_DIALECT, model, blocks: [...items] };
}
