import { lstat } from 'node:fs/promises';
import { z } from 'zod';
import { toolError, toolRefusal, type Tool } from '../tool.js';
import type { BuiltinContext } from './builtin-context.js';
import { writeWhole } from './file-io.js';
import { inputSchema, parseToolArgs } from './tool-args.js';

const NAME = 'fs.write';

const WriteArgs = z.strictObject({
  path: z
    .string()
    .min(1)
    .describe('File to write: relative to the working directory, or absolute.'),
  content: z.string().describe('The complete new content of the file (UTF-8).'),
});

/** `fs.write`: creates or replaces a whole file, creating missing parent directories. */
export function fsWriteTool(context: BuiltinContext): Tool {
  return {
    def: {
      name: NAME,
      description:
        'Create a file or replace its whole content; missing parent directories are created. ' +
        'To change part of an existing file, prefer `fs.edit`.',
      input_schema: inputSchema(WriteArgs),
    },
    run: async (raw, { signal }) => {
      const parsed = parseToolArgs(NAME, WriteArgs, raw);
      if (!parsed.ok) return toolRefusal(parsed.message);
      const checked = await context.guard.check(NAME, 'fs_write', parsed.args.path, { signal });
      if (!checked.ok) return toolRefusal(checked.message);
      signal.throwIfAborted();
      const existed = await exists(checked.real);
      const failed = await writeWhole(checked.real, parsed.args.content);
      if (failed !== undefined) return toolError(`\`${NAME}\`: ${checked.shown} ${failed}.`);
      const bytes = Buffer.byteLength(parsed.args.content);
      return {
        content: `${existed ? 'Replaced' : 'Created'} ${checked.shown} (${bytes} bytes).`,
        isError: false,
      };
    },
  };
}

async function exists(real: string): Promise<boolean> {
  try {
    await lstat(real);
    return true;
  } catch {
    return false;
  }
}
