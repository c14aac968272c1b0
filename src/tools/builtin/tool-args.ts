import { z } from 'zod';
import { formatIssues, type JsonObject } from '../../protocol/index.js';

/**
 * A built-in tool's arguments are one zod schema: the JSON Schema the model sees is generated from
 * it, and the tool parses its arguments with it, so the two cannot drift apart. The registry has
 * already checked the arguments against the JSON Schema; parsing again gives the tool typed values
 * and keeps it safe when it is called without a registry.
 */

/**
 * The JSON Schema (draft-07) a model sees for `schema`'s input. Generated once per schema: the
 * result is shared by every tool built from it (and its identity lets the registry's validator
 * reuse what it compiled), so callers must not modify it.
 */
export function inputSchema(schema: z.ZodType): JsonObject {
  let json = generated.get(schema);
  if (json === undefined) {
    const { $schema: _dialect, ...body } = z.toJSONSchema(schema, {
      target: 'draft-7',
      io: 'input',
    });
    json = dropIntegerNoise(body) as JsonObject;
    generated.set(schema, json);
  }
  return json;
}

const generated = new WeakMap<z.ZodType, JsonObject>();

/**
 * Argument schemas that depend on a node's grant or limits, built once per `key` (a string naming
 * everything the schema depends on), so the schema and its JSON Schema are not built again for
 * every child with the same grant. The `max` most recently built are kept.
 */
export class ArgsCache<T extends z.ZodType> {
  readonly #built = new Map<string, T>();
  readonly #max: number;

  constructor(max = 64) {
    this.#max = max;
  }

  get(key: string, build: () => T): T {
    let schema = this.#built.get(key);
    if (schema === undefined) {
      schema = build();
      this.#built.set(key, schema);
      for (const oldest of this.#built.keys()) {
        if (this.#built.size <= this.#max) break;
        this.#built.delete(oldest);
      }
    }
    return schema;
  }
}

/** Parses a call's arguments, or says what is wrong with them in the registry's words. */
export function parseToolArgs<T extends z.ZodType>(
  tool: string,
  schema: T,
  args: JsonObject,
): { ok: true; args: z.output<T> } | { ok: false; message: string } {
  const parsed = schema.safeParse(args);
  if (parsed.success) return { ok: true, args: parsed.data };
  return {
    ok: false,
    message: `Invalid arguments for \`${tool}\`: ${formatIssues(parsed.error.issues)}.`,
  };
}

/**
 * zod writes the safe-integer range into every integer (`maximum: 9007199254740991`); it says
 * nothing to a model and costs tokens in every request, so it is left out.
 */
function dropIntegerNoise(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropIntegerNoise);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    const isNoise =
      (key === 'maximum' && inner === Number.MAX_SAFE_INTEGER) ||
      (key === 'minimum' && inner === Number.MIN_SAFE_INTEGER);
    if (!isNoise) out[key] = dropIntegerNoise(inner);
  }
  return out;
}
