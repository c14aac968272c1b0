import { z } from 'zod';
import type { JsonObject } from '../../protocol/index.js';

/**
 * A condition on one argument of a tool call: a small declarative vocabulary instead of an
 * expression language, so a rule can be read at a glance, cannot loop or allocate without bound,
 * and can be checked when the config is loaded. Exactly one operator per predicate:
 *
 * - `equals`: the value is this string, number, boolean or null;
 * - `in`: the value is one of these;
 * - `prefix` / `suffix`: the value is a string starting / ending with this;
 * - `matches`: the value is a string the regular expression matches *whole* (it is anchored
 *   for you, so `npm test` cannot match `npm test; curl …`);
 * - `exists`: the argument is present (`true`) or absent (`false`).
 *
 * `path` names the argument: `command`, `options.force`, `files.0.path` (dots between keys, a
 * number indexes an array), or a list of keys for names that contain dots.
 */

/** Longest regular expression a rule may hold, in characters. */
const MAX_PATTERN_CHARS = 256;
/**
 * Longest value `matches` tests, in characters. A backtracking regex over a huge model-written
 * string could stall the supervisor; a longer value cannot be evaluated and fails closed.
 */
const MAX_MATCH_INPUT_CHARS = 4096;

const ScalarSchema = z.union([z.string(), z.number(), z.boolean(), z.null()]);
type Scalar = z.infer<typeof ScalarSchema>;

const ArgPathSchema = z.union([
  z.string().min(1),
  z.array(z.union([z.string(), z.number().int().nonnegative()])).min(1),
]);

const OPERATORS = ['equals', 'in', 'prefix', 'suffix', 'matches', 'exists'] as const;

export const ArgPredicateSchema = z
  .strictObject({
    path: ArgPathSchema,
    equals: ScalarSchema.optional(),
    in: z.array(ScalarSchema).min(1).optional(),
    prefix: z.string().optional(),
    suffix: z.string().optional(),
    matches: z
      .string()
      .min(1)
      .max(MAX_PATTERN_CHARS, `expected a pattern of at most ${MAX_PATTERN_CHARS} characters`)
      .refine(compiles, 'expected a valid regular expression')
      .optional(),
    exists: z.boolean().optional(),
  })
  .superRefine((predicate, ctx) => {
    const given = OPERATORS.filter((op) => Object.hasOwn(predicate, op));
    if (given.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        message: `expected exactly one of ${OPERATORS.map((op) => `\`${op}\``).join(', ')}, got ${
          given.length === 0 ? 'none' : given.map((op) => `\`${op}\``).join(' and ')
        }`,
      });
    }
  });
export type ArgPredicate = z.infer<typeof ArgPredicateSchema>;

/** A predicate's answer, or why it could not give one (which fails the rule closed). */
export type PredicateResult = { ok: true; holds: boolean } | { ok: false; reason: string };

export function evaluatePredicate(predicate: ArgPredicate, args: JsonObject): PredicateResult {
  const where = `\`${pathText(predicate.path)}\``;
  const found = lookup(args, predicate.path);
  if (predicate.exists !== undefined) return { ok: true, holds: found.ok === predicate.exists };
  if (!found.ok) return { ok: false, reason: `argument ${where} is missing` };
  const value = found.value;
  const fail = (expected: string): PredicateResult => ({
    ok: false,
    reason: `argument ${where}: expected ${expected}, got ${kindOf(value)}`,
  });
  if (Object.hasOwn(predicate, 'equals') || predicate.in !== undefined) {
    if (!isScalar(value)) return fail('a string, number, boolean or null');
    const options: Scalar[] = predicate.in ?? [predicate.equals ?? null];
    return { ok: true, holds: options.some((option) => option === value) };
  }
  if (typeof value !== 'string') return fail('a string');
  if (predicate.prefix !== undefined)
    return { ok: true, holds: value.startsWith(predicate.prefix) };
  if (predicate.suffix !== undefined) return { ok: true, holds: value.endsWith(predicate.suffix) };
  if (predicate.matches !== undefined) {
    if (value.length > MAX_MATCH_INPUT_CHARS) {
      return fail(`at most ${MAX_MATCH_INPUT_CHARS} characters to match against`);
    }
    try {
      return { ok: true, holds: anchored(predicate.matches).test(value) };
    } catch {
      // Only a rule that skipped the schema can get here.
      return { ok: false, reason: `predicate on ${where} has an invalid pattern` };
    }
  }
  return { ok: false, reason: `predicate on ${where} has no operator` };
}

function lookup(
  args: JsonObject,
  path: string | readonly (string | number)[],
): { ok: true; value: unknown } | { ok: false } {
  const keys = typeof path === 'string' ? path.split('.') : path;
  let current: unknown = args;
  for (const key of keys) {
    if (Array.isArray(current)) {
      const index = typeof key === 'number' ? key : /^(0|[1-9]\d*)$/.test(key) ? Number(key) : -1;
      if (index < 0 || index >= current.length) return { ok: false };
      current = current[index];
    } else if (typeof current === 'object' && current !== null) {
      // Own keys only: `constructor` or `__proto__` must not reach into the prototype.
      const name = String(key);
      if (!Object.hasOwn(current, name)) return { ok: false };
      current = (current as Record<string, unknown>)[name];
    } else {
      return { ok: false };
    }
  }
  return { ok: true, value: current };
}

const compiledPatterns = new Map<string, RegExp>();

function anchored(pattern: string): RegExp {
  let regex = compiledPatterns.get(pattern);
  if (regex === undefined) {
    regex = new RegExp(`^(?:${pattern})$`, 'u');
    compiledPatterns.set(pattern, regex);
  }
  return regex;
}

function compiles(pattern: string): boolean {
  try {
    // Alone first: a pattern that only compiles inside the wrapper (`a)|(.*`) would break out of
    // the anchoring and match anywhere.
    new RegExp(pattern, 'u');
    anchored(pattern);
    return true;
  } catch {
    return false;
  }
}

function isScalar(value: unknown): value is Scalar {
  return (
    value === null ||
    typeof value === 'string' ||
    typeof value === 'number' ||
    typeof value === 'boolean'
  );
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function pathText(path: string | readonly (string | number)[]): string {
  return typeof path === 'string' ? path : path.join('.');
}
