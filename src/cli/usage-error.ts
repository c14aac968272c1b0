import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ArborError } from '../protocol/index.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * Parses a command's arguments with `node:util`'s `parseArgs`, turning its errors into usage
 * errors (exit 2) that name the flag. A value that starts with a dash and a digit (`--max-depth
 * -3`, `--deadline -5s`) is taken as the flag's value, as `--max-depth=-3` would be: `parseArgs`
 * reads it as an option and calls it "ambiguous", where the flag's own check says what is wrong
 * with the value.
 */
export function parseCommandArgs<O extends Options>(
  command: string,
  args: string[],
  options: O,
  allowPositionals = false,
): ReturnType<
  typeof parseArgs<{ args: string[]; options: O; allowPositionals: boolean; strict: true }>
> {
  try {
    return parseArgs({
      args: joinNegativeValues(args, options),
      options,
      allowPositionals,
      strict: true,
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw usageError(
      `${command}: ${message.replace(/\. To specify a positional argument.*$/s, '.')}`,
      error,
    );
  }
}

/** `--flag -3` as `--flag=-3`, for every string flag of `options`; nothing after `--`. */
function joinNegativeValues(args: readonly string[], options: Options): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--') {
      out.push(...args.slice(i));
      break;
    }
    const next = args[i + 1];
    const name = arg.startsWith('--') ? arg.slice(2) : undefined;
    if (
      name !== undefined &&
      next !== undefined &&
      /^-\.?\d/.test(next) &&
      Object.hasOwn(options, name) &&
      options[name]?.type === 'string'
    ) {
      out.push(`${arg}=${next}`);
      i += 1;
    } else out.push(arg);
  }
  return out;
}

export function usageError(message: string, cause?: unknown): ArborError {
  return new ArborError('usage', message, cause === undefined ? {} : { cause });
}
