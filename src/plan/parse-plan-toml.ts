import { TomlError, parse } from 'smol-toml';
import type { z } from 'zod';
import { ArborError, formatIssues, formatPath } from '../protocol/index.js';
import { CaveatPolicySchema } from '../authority/index.js';
import { PlanSchema, type Plan } from './plan.js';
import { ArtifactRefSchema, SubtaskSchema } from './subtask.js';
import { suggestKey } from './suggest-key.js';

export interface ParsePlanOptions {
  /** Names the text in messages, usually its file path. */
  source?: string;
}

/**
 * Parses a plan from TOML text. Throws `ArborError('plan_invalid')` when the text is not TOML or
 * not a plan; the message has one line per problem, each naming the file, the subtask (by id, or
 * by position when it has none) and the key: "plan.toml: subtask `fix` (#2): unknown key
 * `dependz`". `details.problems` holds the same lines. Empty text is an empty plan.
 */
export function parsePlanToml(text: string, options: ParsePlanOptions = {}): Plan {
  const prefix = options.source === undefined ? '' : `${options.source}: `;
  const document = parseToml(text.replace(/^\uFEFF/, ''), options.source);
  const parsed = PlanSchema.safeParse(document, { reportInput: true });
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.flatMap((issue) =>
    describeProblems(issue, document).map((problem) => `${prefix}${problem}`),
  );
  return fail(problems.join('\n'), { source: options.source, problems });
}

function parseToml(text: string, source: string | undefined): Record<string, unknown> {
  try {
    // `__proto__` and `constructor` keys are refused outright rather than kept or dropped.
    return parse(text, { unsafeKeyBehaviour: 'throw' });
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    const reason = (error.message.split('\n')[0] ?? '').replace(/^Invalid TOML document: /, '');
    const where = `${source ?? 'plan'}:${error.line}:${error.column}`;
    const problem = `${where}: invalid TOML: ${reason}`;
    return fail(`${problem}\n${error.codeblock.trimEnd()}`, {
      source,
      line: error.line,
      column: error.column,
      problems: [problem],
      cause: error,
    });
  }
}

function fail(message: string, details: Record<string, unknown>): never {
  const { cause, ...rest } = details;
  throw new ArborError(
    'plan_invalid',
    message,
    cause === undefined ? { details: rest } : { details: rest, cause },
  );
}

/** One line per problem, located at the subtask it belongs to. */
function describeProblems(issue: z.core.$ZodIssue, document: Record<string, unknown>): string[] {
  const [head, index, ...rest] = issue.path;
  const inSubtask = head === 'subtask' && typeof index === 'number';
  const where = inSubtask ? `${subtaskLabel(document, index)}: ` : '';
  const path = inSubtask ? rest : issue.path;
  const field = path.length > 0 ? `\`${formatPath(path)}\`: ` : '';
  if (issue.code === 'unrecognized_keys') {
    const known = knownKeys(inSubtask, path);
    return issue.keys.map((key) => {
      const guess = suggestKey(key, known);
      const hint = guess === undefined ? '' : ` (did you mean \`${guess}\`?)`;
      return `${where}${field}unknown key \`${key}\`${hint}`;
    });
  }
  if (head === 'subtask' && path.length === 1 && !Array.isArray(document.subtask)) {
    return [`${formatIssues([issue])}; write each subtask as a \`[[subtask]]\` table`];
  }
  return [`${where}${formatIssues([{ ...issue, path }])}`];
}

/** The keys the table at `path` accepts, for "did you mean". */
function knownKeys(inSubtask: boolean, path: readonly PropertyKey[]): string[] {
  if (!inSubtask) return Object.keys(PlanSchema.shape);
  if (path[0] === 'caveat_policy') return Object.keys(CaveatPolicySchema.shape);
  if (path[0] === 'artifact_ref') return Object.keys(ArtifactRefSchema.shape);
  return Object.keys(SubtaskSchema.shape);
}

/** "subtask `fix` (#2)", or "subtask #2" when the table has no usable id. Positions count from 1. */
function subtaskLabel(document: Record<string, unknown>, index: number): string {
  const list = document.subtask;
  const table: unknown = Array.isArray(list) ? list[index] : undefined;
  const id = typeof table === 'object' && table !== null && 'id' in table ? table.id : undefined;
  const position = `#${index + 1}`;
  return typeof id === 'string' && id.trim() !== ''
    ? `subtask \`${id}\` (${position})`
    : `subtask ${position}`;
}
