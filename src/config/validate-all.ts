import { ArborError, isArborError } from '../protocol/index.js';

/**
 * Runs every check, even after one fails, so a user with three bad flags hears of all three at
 * once: each result by its key when all pass, else one `usage` error whose message lists every
 * problem in the order the checks are written (`details.problems` holds them one by one). A check
 * that itself reports several problems (a nested `validateAll`) contributes each of them. Errors
 * other than `usage` and `config` are not the user's and are thrown as they come.
 */
export function validateAll<T extends Record<string, unknown>>(checks: {
  [K in keyof T]: () => T[K];
}): T {
  const results: Partial<T> = {};
  const problems: string[] = [];
  for (const key of Object.keys(checks) as (keyof T)[]) {
    try {
      results[key] = checks[key]();
    } catch (error) {
      problems.push(...problemsOf(error));
    }
  }
  if (problems.length > 0) throw problemsError(problems);
  return results as T;
}

/** The problems a usage or config error reports; any other error is rethrown. */
function problemsOf(error: unknown): string[] {
  if (!isArborError(error, 'usage') && !isArborError(error, 'config')) throw error;
  const listed = error.details.problems;
  if (Array.isArray(listed) && listed.every((item) => typeof item === 'string')) return listed;
  return [error.message];
}

/** One `usage` error for a list of problems: the message itself when there is one. */
function problemsError(problems: readonly string[]): ArborError {
  const message =
    problems.length === 1
      ? (problems[0] ?? '')
      : `${problems.length} problems:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`;
  return new ArborError('usage', message, { details: { problems: [...problems] } });
}
