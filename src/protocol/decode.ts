import { z } from 'zod';
import { AgentFrameSchema, type AgentFrame } from './agent-frames.js';
import { ControlFrameSchema, type ControlFrame } from './control-frames.js';
import { describeValue, formatIssues } from './issues.js';
import { nestsDeeperThan } from './json-depth.js';
import { MAX_FRAME_DEPTH, PROTOCOL_VERSION } from './version.js';
import { excerptOf, type ProtocolViolation, type ViolationCode } from './violation.js';

/** Which way frames travel: `down` (control, supervisor → child) or `up` (agent, child → supervisor). */
export type Direction = 'up' | 'down';

export type Frame = ControlFrame | AgentFrame;

/** The frame type a direction admits. */
export type FrameOf<D extends Direction | 'any'> = D extends 'down'
  ? ControlFrame
  : D extends 'up'
    ? AgentFrame
    : Frame;

export type DecodeResult<F> =
  { ok: true; line: number; frame: F } | { ok: false; violation: ProtocolViolation };

type AnySchema = z.ZodType<Frame>;

/**
 * The schema of each frame type, compiled from its second use on: zod generates a parser
 * specialized to the frame's shape, several times faster than the interpreted one (it falls back
 * to the interpreted parser to report issues). Compiling costs far more than one interpreted parse
 * (about 36 ms for `spawn`, against 9 ms for its first interpreted parse), so a frame type seen
 * once is never compiled, and a child's start-up does not pay for frames it never reads. `spawn`
 * is never compiled at all: a child reads exactly one in its life.
 */
class FrameSchemas {
  readonly #sources = new Map<string, z.ZodObject>();
  readonly #compiled = new Map<string, AnySchema>();
  readonly #seen = new Set<string>();

  constructor(union: { options: readonly z.ZodObject[] }) {
    for (const option of union.options) {
      const literal = option.shape.type as z.ZodLiteral<string>;
      this.#sources.set(literal.value, option);
    }
  }

  keys(): string[] {
    return [...this.#sources.keys()];
  }

  get(type: string): AnySchema | undefined {
    const compiled = this.#compiled.get(type);
    if (compiled !== undefined) return compiled;
    const source = this.#sources.get(type);
    if (source === undefined) return undefined;
    if (type === 'spawn' || !this.#seen.has(type)) {
      this.#seen.add(type);
      return source as unknown as AnySchema;
    }
    const schema = z.compile(source) as unknown as AnySchema;
    this.#compiled.set(type, schema);
    return schema;
  }

  has(type: string): boolean {
    return this.#sources.has(type);
  }
}

const DOWN = new FrameSchemas(ControlFrameSchema);
const UP = new FrameSchemas(AgentFrameSchema);

/** Every frame type name, by direction. */
export const FRAME_TYPES: Readonly<Record<Direction, readonly string[]>> = {
  down: DOWN.keys(),
  up: UP.keys(),
};

/** Issues carry the offending input, for the violation's reason. */
const REPORT_INPUT = { reportInput: true } as const;
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor']);
/**
 * A positive exponent of three digits or more; the digit-run case is checked apart, by length. In
 * JSON text a number's exponent always follows a digit, so the pattern starts there: far fewer
 * places to try than every `e` of every word.
 */
const LONG_EXPONENT = /\d[eE]\+?\d{3}/;
/**
 * Every line that could spell a forbidden key (`__proto__`, `constructor`, or either through a
 * `\u` escape) or hold a long exponent, in one scan: most lines match none, and only a line that
 * matches is checked case by case.
 */
const SUSPECT = /__proto__|constructor|\\u|\d[eE]\+?\d{3}/;
const LONG_DIGIT_RUN = /\d{309}/;

/**
 * Decodes one line of text into a frame of the given direction, or a violation saying why not.
 * Blank lines are the caller's business; this treats every line it gets as a frame candidate.
 */
export function decodeLine<D extends Direction | 'any'>(
  text: string,
  line: number,
  direction: D,
): DecodeResult<FrameOf<D>> {
  if (nestsDeeperThan(text, MAX_FRAME_DEPTH))
    return failure(text, line, 'over_bound', `nested deeper than ${MAX_FRAME_DEPTH} levels`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return failure(
      text,
      line,
      'malformed_json',
      error instanceof Error ? error.message : 'not valid JSON',
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return failure(
      text,
      line,
      'not_an_object',
      `expected a JSON object, got ${Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'null' : typeof value}`,
    );
  }
  const suspect = SUSPECT.test(text);
  // Cheap pre-check: only lines that could spell a forbidden key (possibly through escapes) pay
  // for the walk.
  if (
    suspect &&
    (text.includes('__proto__') || text.includes('constructor') || text.includes('\\u'))
  ) {
    const path = findForbiddenKey(value);
    if (path !== undefined)
      return failure(text, line, 'forbidden_key', `key \`${path}\` is not allowed`);
  }
  // JSON numbers past ±1.8e308 parse as ±Infinity, which a schema would report as `null` (its
  // JSON form) and a free-form field would carry on to the store as `null`. Only a long exponent
  // or a 309-digit run can spell one.
  // (One pattern for both cases tried a 309-digit match at every digit of every line.)
  if ((suspect && LONG_EXPONENT.test(text)) || (text.length >= 309 && LONG_DIGIT_RUN.test(text))) {
    const path = findNonFiniteNumber(value);
    if (path !== undefined)
      return failure(
        text,
        line,
        'invalid_frame',
        `\`${path}\`: number out of range (past ±1.8e308, it is not a finite number)`,
      );
  }
  const type = (value as Record<string, unknown>).type;
  if (typeof type !== 'string')
    return failure(text, line, 'missing_type', 'expected a string field `type`');

  const schema = schemaFor(type, direction);
  if (schema === undefined) {
    const other = direction === 'down' ? UP.has(type) : direction === 'up' && DOWN.has(type);
    if (other) {
      const [is, isNot] =
        direction === 'down'
          ? ['an agent frame (up)', 'a control frame (down)']
          : ['a control frame (down)', 'an agent frame (up)'];
      return failure(text, line, 'wrong_direction', `\`${type}\` is ${is}, not ${isNot}`);
    }
    return failure(
      text,
      line,
      'unknown_type',
      `unknown frame type ${JSON.stringify(type).slice(0, 60)}`,
    );
  }
  const version = (value as Record<string, unknown>).protocol;
  if (
    (type === 'spawn' || type === 'ready') &&
    version !== undefined &&
    version !== PROTOCOL_VERSION
  ) {
    return failure(
      text,
      line,
      'unsupported_version',
      `\`${type}\` speaks protocol ${describeValue(version)}; this build speaks ${PROTOCOL_VERSION}`,
    );
  }
  const parsed = schema.safeParse(value, REPORT_INPUT);
  if (!parsed.success)
    return failure(text, line, 'invalid_frame', `${type}: ${formatIssues(parsed.error.issues)}`);
  return { ok: true, line, frame: parsed.data as FrameOf<D> };
}

function failure<F>(
  text: string,
  line: number,
  code: ViolationCode,
  reason: string,
): DecodeResult<F> {
  return { ok: false, violation: { line, code, reason, excerpt: excerptOf(text) } };
}

function schemaFor(type: string, direction: Direction | 'any'): AnySchema | undefined {
  if (direction === 'down') return DOWN.get(type);
  if (direction === 'up') return UP.get(type);
  return DOWN.get(type) ?? UP.get(type);
}

/** The path of the first number in a parsed JSON value that is not finite. */
function findNonFiniteNumber(root: unknown): string | undefined {
  const stack: { value: unknown; path: string }[] = [{ value: root, path: '' }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { value, path } = item;
    if (typeof value === 'number' && !Number.isFinite(value)) return path;
    if (typeof value !== 'object' || value === null) continue;
    for (const [key, child] of Object.entries(value)) {
      const childPath = Array.isArray(value)
        ? `${path}[${key}]`
        : path === ''
          ? key
          : `${path}.${key}`;
      stack.push({ value: child, path: childPath });
    }
  }
  return undefined;
}

/**
 * The path of the first `__proto__`/`constructor` own key in a parsed JSON value. Iterative, so
 * deeply nested input cannot overflow the stack.
 */
export function findForbiddenKey(root: unknown): string | undefined {
  const stack: { value: unknown; path: string }[] = [{ value: root, path: '' }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { value, path } = item;
    if (typeof value !== 'object' || value === null) continue;
    if (Array.isArray(value)) {
      value.forEach((element, i) => stack.push({ value: element, path: `${path}[${i}]` }));
      continue;
    }
    for (const [key, child] of Object.entries(value)) {
      const childPath = path === '' ? key : `${path}.${key}`;
      if (FORBIDDEN_KEYS.has(key)) return childPath;
      stack.push({ value: child, path: childPath });
    }
  }
  return undefined;
}
