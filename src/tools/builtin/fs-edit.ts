import { isUtf8 } from 'node:buffer';
import { z } from 'zod';
import { toolError, toolRefusal, type Tool } from '../tool.js';
import { FILE_TOOL_TRIFECTA, type BuiltinContext } from './builtin-context.js';
import { describeFsError, replaceContent } from './file-io.js';
import { openFailure } from './path-guard.js';
import { inputSchema, parseToolArgs } from './tool-args.js';

const NAME = 'fs.edit';

const EditArgs = z.strictObject({
  path: z.string().min(1).describe('File to edit: relative to the working directory, or absolute.'),
  old_string: z
    .string()
    .min(1)
    .describe(
      'The exact text to replace, whitespace included; it must occur exactly once unless replace_all is set.',
    ),
  new_string: z.string().describe('The text to put in its place.'),
  replace_all: z
    .boolean()
    .optional()
    .describe('Replace every occurrence instead of requiring exactly one (default false).'),
});

/**
 * `fs.edit`: replaces one exact occurrence of a string in a file. Requiring the old text to be
 * unique makes the model name the place it means; an edit that matches nothing or several places
 * fails with the count, so the model can widen its context and try again. The file is read and
 * written through one descriptor, so the file written is the file that was checked and read.
 */
export function fsEditTool(context: BuiltinContext): Tool {
  return {
    def: {
      name: NAME,
      description:
        'Replace an exact piece of text in an existing file. `old_string` must occur exactly once ' +
        '(include surrounding lines to make it unique) unless `replace_all` is true.',
      input_schema: inputSchema(EditArgs),
    },
    trifecta: FILE_TOOL_TRIFECTA,
    run: async (raw, { signal }) => {
      const parsed = parseToolArgs(NAME, EditArgs, raw);
      if (!parsed.ok) return toolRefusal(parsed.message);
      const { path, old_string: from, new_string: to, replace_all: all = false } = parsed.args;
      if (from === to) return toolError(`\`${NAME}\`: old_string and new_string are the same.`);
      const opened = await context.guard.open(NAME, 'edit', path, { signal });
      if (!opened.ok) return openFailure(opened);
      const { handle, shown, size } = opened;
      const fail = (why: string) => toolError(`\`${NAME}\`: ${shown} ${why}.`);
      try {
        if (size > context.limits.editBytes) {
          return fail(
            `is ${size} bytes, larger than the ${context.limits.editBytes}-byte edit limit; ` +
              'use `fs.write` to replace it whole',
          );
        }
        const bytes = await handle.readFile();
        // Decoding and re-encoding anything but clean UTF-8 text would corrupt the file.
        if (bytes.includes(0) || !isUtf8(bytes)) return fail('is not UTF-8 text');
        const text = bytes.toString('utf8');
        const count = text.split(from).length - 1;
        if (count === 0) {
          return fail('does not contain old_string (it must match exactly, whitespace included)');
        }
        if (count > 1 && !all) {
          return fail(
            `contains old_string ${count} times; include more surrounding text to make it unique, ` +
              'or set replace_all to replace every occurrence',
          );
        }
        signal.throwIfAborted();
        try {
          // split/join, not String.replace: `$&` and `$1` in new_string must stay literal text.
          await replaceContent(handle, text.split(from).join(to));
        } catch (error) {
          return fail(describeFsError(error));
        }
        const what = count === 1 ? '1 occurrence' : `${count} occurrences`;
        return { content: `Replaced ${what} in ${shown}.`, isError: false };
      } finally {
        await handle.close();
      }
    },
  };
}
