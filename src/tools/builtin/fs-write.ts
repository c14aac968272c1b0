import { z } from 'zod';
import { toolError, toolRefusal, type Tool } from '../tool.js';
import { FILE_TOOL_TRIFECTA, type BuiltinContext } from './builtin-context.js';
import { describeFsError, replaceContent } from './file-io.js';
import { openFailure } from './path-guard.js';
import { inputSchema, parseToolArgs } from './tool-args.js';

const NAME = 'fs.write';

const WriteArgs = z.strictObject({
  path: z
    .string()
    .min(1)
    .describe('File to write: relative to the working directory, or absolute.'),
  content: z.string().describe('The complete new content of the file (UTF-8).'),
});

/**
 * `fs.write`: creates or replaces a whole file, creating missing parent directories. The file is
 * written through the descriptor the guard opened, never reopened by name.
 */
export function fsWriteTool(context: BuiltinContext): Tool {
  return {
    def: {
      name: NAME,
      description:
        'Create a file or replace its whole content; missing parent directories are created. ' +
        'To change part of an existing file, prefer `fs.edit`.',
      input_schema: inputSchema(WriteArgs),
    },
    trifecta: FILE_TOOL_TRIFECTA,
    run: async (raw, { signal }) => {
      const parsed = parseToolArgs(NAME, WriteArgs, raw);
      if (!parsed.ok) return toolRefusal(parsed.message);
      const opened = await context.guard.open(NAME, 'write', parsed.args.path, { signal });
      if (!opened.ok) return openFailure(opened);
      const { handle, shown, created } = opened;
      // Once the file is open the write finishes: stopping now would leave it created but empty.
      try {
        await replaceContent(handle, parsed.args.content);
      } catch (error) {
        return toolError(`\`${NAME}\`: ${shown} ${describeFsError(error)}.`);
      } finally {
        await handle.close();
      }
      const bytes = Buffer.byteLength(parsed.args.content);
      return {
        content: `${created ? 'Created' : 'Replaced'} ${shown} (${bytes} bytes).`,
        isError: false,
      };
    },
  };
}
