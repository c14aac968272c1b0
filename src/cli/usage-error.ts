import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ArborError } from '../protocol/index.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * Parses a command's arguments with `node:util`'s `parseArgs`, turning its errors into usage
 * errors (exit 2) that name the flag.
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
    return parseArgs({ args, options, allowPositionals, strict: true });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw usageError(
      `${command}: ${message.replace(/\. To specify a positional argument.*$/s, '.')}`,
      error,
    );
  }
}

export function usageError(message: string, cause?: unknown): ArborError {
  return new ArborError('usage', message, cause === undefined ? {} : { cause });
}
