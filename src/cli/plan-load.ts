import { readPlanFile, type Plan } from '../plan/index.js';
import { isArborError } from '../protocol/index.js';
import { write, type CliIo } from './output.js';
import { parseCommandArgs, usageError } from './usage-error.js';

type Flags = Parameters<typeof parseCommandArgs>[2];

/** Parses `arbor plan <sub> <file> [flags]`: exactly one file, and the command's flags. */
export function parsePlanArgs<F extends Flags>(
  command: string,
  args: string[],
  flags: F,
): { file: string | undefined; values: ReturnType<typeof parseCommandArgs<F>>['values'] } {
  const { values, positionals } = parseCommandArgs(command, args, flags, true);
  if (positionals.length > 1) {
    throw usageError(`${command}: expected one plan file, got ${positionals.length}.`);
  }
  return { file: positionals[0], values };
}

/**
 * Reads a plan for a command. A file that is not a valid plan prints its problems, one per line,
 * to stderr and gives `undefined` (the caller exits 2); a file that cannot be read throws a
 * `config` error, which the CLI reports the same way.
 */
export async function loadPlan(file: string, io: CliIo): Promise<Plan | undefined> {
  try {
    return await readPlanFile(file);
  } catch (error) {
    if (!isArborError(error, 'plan_invalid')) throw error;
    await write(io.stderr, `${error.message}\n`);
    return undefined;
  }
}
