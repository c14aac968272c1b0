import type { z } from 'zod';
import { AttemptFailure } from './attempt-failure.js';
import { decodeJson } from './decode-json.js';
import { notTheShape } from './dialect.js';
import type { SseEvent } from './sse-events.js';

/** A dialect's stream events: a union of objects told apart by a literal `type`. */
type TypedEventSchema<T> = z.ZodType<T> & {
  readonly options: readonly { readonly shape: { readonly type: { readonly value: string } } }[];
};

const eventTypes = new WeakMap<object, ReadonlySet<string>>();

/** The event types a schema reads, worked out once per schema. */
function eventTypesOf(schema: TypedEventSchema<unknown>): ReadonlySet<string> {
  let types = eventTypes.get(schema);
  if (types === undefined) {
    types = new Set(schema.options.map((option) => option.shape.type.value));
    eventTypes.set(schema, types);
  }
  return types;
}

/**
 * One server-sent event of a dialect whose events carry a `type` (Anthropic messages, the OpenAI
 * Responses API), checked against the dialect's schema. `undefined` for an event type the dialect
 * does not read: the providers add event types, and a client is to skip those it does not know.
 * Throws `AttemptFailure` (`bad_response`) for data that is not JSON or not the known type's shape.
 * `raw` is the event as sent, for what must be kept verbatim (the schema may drop fields).
 */
export function typedStreamEvent<T>(
  event: SseEvent,
  schema: TypedEventSchema<T>,
  what: string,
): { data: T; raw: unknown } | undefined {
  const known = eventTypesOf(schema);
  const decoded = decodeJson(event.data);
  if (!decoded.ok) throw new AttemptFailure('bad_response', `a stream event is ${decoded.reason}`);
  const type = (decoded.value as { type?: unknown } | null)?.type;
  if (typeof type === 'string' && !known.has(type)) return undefined;
  const parsed = schema.safeParse(decoded.value, { reportInput: true });
  if (!parsed.success) throw notTheShape(what, parsed.error);
  return { data: parsed.data, raw: decoded.value };
}
