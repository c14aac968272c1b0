import { z } from 'zod';

/**
 * Small building blocks shared by every wire schema. Field names on the wire are snake_case;
 * the inferred TypeScript types keep those names so nothing is renamed at the edge.
 */

/** A non-negative integer that fits in a double without losing precision (token counts, ids). */
export const CountSchema = z
  .number({ error: 'expected a non-negative integer' })
  .int({ error: 'expected a non-negative integer' })
  .nonnegative({ error: 'expected a non-negative integer' })
  .max(Number.MAX_SAFE_INTEGER, { error: 'expected an integer below 2^53' });

/** A strictly positive integer (step caps, sequence numbers that start at 1). */
export const PositiveIntSchema = z
  .number({ error: 'expected a positive integer' })
  .int({ error: 'expected a positive integer' })
  .positive({ error: 'expected a positive integer' })
  .max(Number.MAX_SAFE_INTEGER, { error: 'expected an integer below 2^53' });

/**
 * A duration in milliseconds: `CountSchema`, named for what it holds.
 *
 * @alias
 */
export const MillisSchema = CountSchema;

/** A string that must hold at least one non-whitespace character. */
export const NonBlankSchema = z.string().refine((s) => s.trim().length > 0, {
  error: 'expected a non-empty string',
});

/** HTTP header name → value. Values may be secret templates such as `Bearer {{secret:TOKEN}}`. */
export const HeadersSchema = z.record(z.string().min(1), z.string());

/**
 * Any JSON value, kept opaque (event fields, tool arguments, results). Frames are parsed from JSON
 * text before they are validated, so whatever reaches this schema is JSON already; the consumer
 * that gives the value meaning validates it there.
 */
export const JsonValueSchema = z.unknown();

/** A JSON object (tool arguments, event fields). */
export const JsonObjectSchema = z.record(z.string(), z.unknown());
export type JsonObject = z.infer<typeof JsonObjectSchema>;
