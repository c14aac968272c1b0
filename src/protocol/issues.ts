import type { z } from 'zod';

/**
 * Turns zod issues into one sentence per problem that names the field, what was expected and what
 * came: "`usage.input_tokens`: expected a non-negative integer, got -5".
 */
export function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues.map(formatIssue).join('; ');
}

function formatIssue(issue: z.core.$ZodIssue): string {
  const where = issue.path.length > 0 ? `\`${formatPath(issue.path)}\`: ` : '';
  // Never echo what was sent in a field that may hold a secret.
  const shown = issue.path.some(isSecretKey) ? { ...issue, input: '[redacted]' } : issue;
  return `${where}${describeIssue(shown as z.core.$ZodIssue)}`;
}

/** Field names whose values may be credentials; everything under `headers` and `env` too. */
const SECRET_KEY = /(^|_)(key|token|secret|password)$|authorization|cookie|^headers$|^env$/i;

function isSecretKey(key: PropertyKey): boolean {
  return typeof key === 'string' && SECRET_KEY.test(key);
}

export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

const EXPECTED_NAMES: Record<string, string> = {
  record: 'an object',
  object: 'an object',
  array: 'an array',
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'a boolean',
  null: 'null',
};

/** zod's own messages start like this; a message that does not was written by us. */
const DEFAULT_MESSAGE = /^(Invalid|Too small|Too big)/;

function describeIssue(issue: z.core.$ZodIssue): string {
  const got = `got ${describeValue(issue.input)}`;
  const custom = !DEFAULT_MESSAGE.test(issue.message);
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return `required field is missing`;
      if (custom) return `${issue.message}, ${got}`;
      return `expected ${EXPECTED_NAMES[issue.expected] ?? issue.expected}, ${got}`;
    case 'too_small':
    case 'too_big':
      if (custom) return `${issue.message}, ${got}`;
      return `${issue.message
        .replace(/^Too (small|big): /, '')
        .replace(/^expected (\w+) to (?:be|have) ([<>]=?)/, 'expected $1 $2 ')}, ${got}`;
    case 'invalid_value':
      if (custom) return `${issue.message}, ${got}`;
      return `expected ${issue.values.map((v) => JSON.stringify(v)).join(' | ')}, ${got}`;
    case 'invalid_union':
      return custom ? `${issue.message}, ${got}` : describeUnion(issue);
    case 'unrecognized_keys':
      return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `\`${k}\``).join(', ')}`;
    case 'invalid_format':
    case 'not_multiple_of':
    case 'invalid_key':
    case 'invalid_element':
      return `${issue.message}, ${got}`;
    case 'custom':
      return issue.message;
  }
}

function describeUnion(issue: z.core.$ZodIssueInvalidUnion): string {
  if (issue.discriminator !== undefined && issue.errors.length === 0) {
    const key = issue.discriminator;
    const value =
      typeof issue.input === 'object' && issue.input !== null
        ? (issue.input as Record<string, unknown>)[key]
        : undefined;
    const options = ('options' in issue ? issue.options : undefined) ?? [];
    const expected = options.map((option) => JSON.stringify(option)).join(' | ');
    return `expected \`${key}\` to be ${expected}, got ${describeValue(value)}`;
  }
  // Report the branch that got furthest: the one whose first issue has the longest path.
  const best = issue.errors
    .filter((branch) => branch.length > 0)
    .sort((a, b) => (b[0]?.path.length ?? 0) - (a[0]?.path.length ?? 0))[0];
  if (best !== undefined && (best[0]?.path.length ?? 0) > 0) return formatIssues(best);
  return `does not match any accepted form, got ${describeValue(issue.input)}`;
}

/** A short rendering of a received value for error messages. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value))
    return value.length === 0 ? 'an empty array' : `an array of ${value.length}`;
  if (typeof value === 'object') return 'an object';
  // JSON.stringify writes these as `null`, which is not what came.
  if (typeof value === 'number' && !Number.isFinite(value)) return `${value} (not a finite number)`;
  const text = JSON.stringify(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
