import { z } from 'zod';
import { toolError, toolRefusal, type Tool } from '../tool.js';
import { FILE_TOOL_TRIFECTA, type BuiltinContext } from './builtin-context.js';
import { openFailure } from './path-guard.js';
import { readLines, type LineWindow } from './read-lines.js';
import { inputSchema, parseToolArgs } from './tool-args.js';

const NAME = 'fs.read';

/** Bytes looked at for NUL bytes before a file is taken for text. */
const SNIFF_BYTES = 8192;

const ReadArgs = z.strictObject({
  path: z.string().min(1).describe('File to read: relative to the working directory, or absolute.'),
  offset: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe('1-based line number to start at (default 1).'),
  limit: z.number().int().min(1).optional().describe('How many lines to read at most.'),
});

/**
 * `fs.read`: a window of lines of a text file. Windows are counted in lines, because that is how a
 * model navigates code and how it continues ("offset=2001"); a byte cap bounds each answer, and a
 * marker at the end says exactly where to continue when the file goes on.
 */
export function fsReadTool(context: BuiltinContext): Tool {
  const { limits } = context;
  return {
    def: {
      name: NAME,
      description:
        `Read a UTF-8 text file. Returns up to ${limits.readLines} lines (or ${limits.readBytes / 1024} KiB) ` +
        'from `offset`; a note at the end says how to continue when the file is longer.',
      input_schema: inputSchema(ReadArgs),
    },
    trifecta: FILE_TOOL_TRIFECTA,
    run: async (raw, { signal }) => {
      const parsed = parseToolArgs(NAME, ReadArgs, raw);
      if (!parsed.ok) return toolRefusal(parsed.message);
      const { path, offset = 1, limit = limits.readLines } = parsed.args;
      const opened = await context.guard.open(NAME, 'read', path, { signal });
      if (!opened.ok) return openFailure(opened);
      const { handle, size, shown, real } = opened;
      try {
        // Sniffed by reading, not by `size`: virtual files (sysfs) report 0 bytes and still have text.
        const head = Buffer.alloc(SNIFF_BYTES);
        const { bytesRead } = await handle.read(head, 0, SNIFF_BYTES, 0);
        if (head.subarray(0, bytesRead).includes(0)) {
          return toolError(
            `\`${NAME}\`: ${shown} looks binary (NUL bytes in its first ${bytesRead} bytes; ` +
              `${size} bytes in all). fs.read returns text only.`,
          );
        }
        const window = await readLines(
          handle,
          { offset, limit, maxBytes: limits.readBytes },
          { signal },
        );
        // The real path of what was opened: the runtime trifecta judges sensitive files by it.
        return { content: render(shown, window), isError: false, read: [real] };
      } finally {
        await handle.close();
      }
    },
  };
}

function render(shown: string, window: LineWindow): string {
  if (window.total === 0) return `[${shown} is empty]`;
  if (window.last < window.first) {
    return `[${shown} has ${window.total ?? 'fewer'} lines; offset ${window.first} is past the end]`;
  }
  if (window.cut) {
    return (
      `${window.text}\n[line ${window.first} is longer than the read cap and was cut; ` +
      `continue with offset=${window.first + 1}]`
    );
  }
  if (!window.more) return window.text;
  return (
    `${window.text}\n[showed lines ${window.first}-${window.last}; the file goes on: ` +
    `continue with offset=${window.last + 1}]`
  );
}
