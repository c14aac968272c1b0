import type { ErrorObject } from 'ajv';
import { describeValue, formatPath } from '../protocol/index.js';

/** Problems listed in one message; a model fixes the first few and tries again. */
const MAX_SHOWN = 8;

/**
 * Turns ajv's errors (collected with `allErrors` and `verbose`) into one clause per bad field that
 * names the field, what was expected and what came: "`path`: expected string, got 42". Errors
 * inside an `anyOf`/`oneOf` are folded into one clause for the field, because listing every
 * branch's complaint ("expected string; expected number") reads as a contradiction.
 */
export function formatSchemaErrors(errors: readonly ErrorObject[]): string {
  const combinators = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  const shown: string[] = [];
  for (const error of errors) {
    if (error.keyword === 'if') continue; // always paired with the `then`/`else` error itself
    if (combinators.some((c) => c !== error && isBranchOf(error, c))) continue;
    const clause = describeError(error, errors);
    if (!shown.includes(clause)) shown.push(clause);
  }
  if (shown.length === 0) return 'the arguments do not match the tool schema';
  const more = shown.length - MAX_SHOWN;
  return shown.slice(0, MAX_SHOWN).join('; ') + (more > 0 ? `; and ${more} more` : '');
}

function describeError(error: ErrorObject, all: readonly ErrorObject[]): string {
  const params = error.params as Record<string, unknown>;
  const got = `got ${describeValue(error.data)}`;
  const at = (extra?: string): string => fieldName(error.instancePath, extra);
  switch (error.keyword) {
    case 'required':
      return `${at(String(params.missingProperty))}: required field is missing`;
    case 'additionalProperties':
      return `${at(String(params.additionalProperty))}: unknown field${allowedFields(error)}`;
    case 'type':
      return `${at()}: expected ${typeNames(params.type)}, ${got}`;
    case 'enum':
      return `${at()}: expected one of ${listValues(params.allowedValues)}, ${got}`;
    case 'const':
      return `${at()}: expected ${JSON.stringify(params.allowedValue)}, ${got}`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `${at()}: expected ${String(params.comparison)} ${String(params.limit)}, ${got}`;
    case 'minLength':
    case 'maxLength':
      return `${at()}: expected ${bound(error.keyword, params.limit)} characters, got ${characters(error.data)}`;
    case 'minItems':
    case 'maxItems':
      return `${at()}: expected ${bound(error.keyword, params.limit)} items, ${got}`;
    case 'minProperties':
    case 'maxProperties':
      return `${at()}: expected ${bound(error.keyword, params.limit)} fields, ${got}`;
    case 'pattern':
      return `${at()}: expected a string matching /${String(params.pattern)}/, ${got}`;
    case 'multipleOf':
      return `${at()}: expected a multiple of ${String(params.multipleOf)}, ${got}`;
    case 'uniqueItems':
      return `${at()}: expected unique items, got duplicates at ${duplicates(params.i, params.j)}`;
    case 'anyOf':
    case 'oneOf':
      return `${at()}: ${describeBranches(error, all)}, ${got}`;
    default:
      return `${at()}: ${error.message ?? `fails \`${error.keyword}\``}, ${got}`;
  }
}

/** Was `error` raised inside the branches of the combinator `parent` (same field or deeper)? */
function isBranchOf(error: ErrorObject, parent: ErrorObject): boolean {
  return (
    error.schemaPath.startsWith(`${parent.schemaPath}/`) &&
    (error.instancePath === parent.instancePath ||
      error.instancePath.startsWith(`${parent.instancePath}/`))
  );
}

/** For `anyOf`/`oneOf`: the types the branches wanted, when they disagree on type. */
function describeBranches(error: ErrorObject, all: readonly ErrorObject[]): string {
  if (error.keyword === 'oneOf' && Array.isArray(error.params.passingSchemas)) {
    return 'matches more than one of the allowed forms';
  }
  const types = all
    .filter((e) => e.keyword === 'type' && e.instancePath === error.instancePath)
    .filter((e) => isBranchOf(e, error))
    .flatMap((e) => toList((e.params as Record<string, unknown>).type));
  const unique = [...new Set(types)];
  return unique.length > 0
    ? `expected ${unique.join(' or ')}`
    : 'does not match any of the allowed forms';
}

/** `/a/0/b` (a JSON pointer) plus an optional child key → `a[0].b`, in backticks. */
function fieldName(instancePath: string, child?: string): string {
  const keys: PropertyKey[] = instancePath
    .split('/')
    .slice(1)
    .map((raw) => raw.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((key) => (/^(0|[1-9]\d*)$/.test(key) ? Number(key) : key));
  if (child !== undefined) keys.push(child);
  return keys.length === 0 ? 'arguments' : `\`${formatPath(keys)}\``;
}

function allowedFields(error: ErrorObject): string {
  const properties = (error.parentSchema as { properties?: unknown } | undefined)?.properties;
  if (typeof properties !== 'object' || properties === null) return '';
  const names = Object.keys(properties);
  return names.length === 0 ? '' : ` (expected one of ${names.map((n) => `\`${n}\``).join(', ')})`;
}

function typeNames(type: unknown): string {
  return toList(type).join(' or ');
}

function toList(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String);
  return typeof value === 'string' ? value.split(',') : [String(value)];
}

function listValues(values: unknown): string {
  return Array.isArray(values) ? values.map((v) => JSON.stringify(v)).join(' | ') : String(values);
}

function duplicates(i: unknown, j: unknown): string {
  const [first, second] = [Number(i), Number(j)].sort((a, b) => a - b);
  return `[${String(first)}] and [${String(second)}]`;
}

function characters(data: unknown): string {
  return typeof data === 'string' ? `${data.length}` : describeValue(data);
}

function bound(keyword: string, limit: unknown): string {
  return `${keyword.startsWith('min') ? 'at least' : 'at most'} ${String(limit)}`;
}
