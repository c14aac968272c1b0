import type { z } from 'zod';
import { formatIssues } from '../protocol/index.js';
import { ConfigFileSchema } from '../config/index.js';
import { TomlLocator, type TextPosition } from './config-locate.js';

/** One thing wrong with a config file, placed at the key, header or element it is about. */
export interface ConfigProblem extends TextPosition {
  message: string;
}

/**
 * Every schema problem of a parsed config file, in file order; empty when it is valid. `text` is
 * the TOML `document` was parsed from: zod names a problem by path, and the user needs a line.
 */
export function findConfigProblems(text: string, document: unknown): ConfigProblem[] {
  const parsed = ConfigFileSchema.safeParse(document, { reportInput: true });
  if (parsed.success) return [];
  const locator = new TomlLocator(text);
  return parsed.error.issues
    .flatMap(splitUnknownKeys)
    .map(({ issue, at }) => ({ ...locator.locate(at), message: formatIssues([issue]) }))
    .sort((a, b) => a.line - b.line || a.column - b.column);
}

/** `FILE:LINE:COLUMN: message`, the form compilers use and editors and terminals link. */
export function formatProblem(file: string, problem: ConfigProblem): string {
  return `${file}:${problem.line}:${problem.column}: ${problem.message}`;
}

/**
 * zod reports a table's unknown keys in one issue placed at the table; each key gets its own
 * problem here, placed at the key, so a file with two typos shows two lines that each lead to one.
 */
function splitUnknownKeys(
  issue: z.core.$ZodIssue,
): { issue: z.core.$ZodIssue; at: readonly PropertyKey[] }[] {
  if (issue.code !== 'unrecognized_keys') return [{ issue, at: issue.path }];
  return issue.keys.map((key) => ({ issue: { ...issue, keys: [key] }, at: [...issue.path, key] }));
}
