import type { Dirent } from 'node:fs';
import { lstat, readdir, type FileHandle } from 'node:fs/promises';
import { z } from 'zod';
import { toolError, toolRefusal, type Tool } from '../tool.js';
import { FILE_TOOL_TRIFECTA, type BuiltinContext } from './builtin-context.js';
import { fdPath } from './fd-path.js';
import { describeFsError } from './file-io.js';
import { openFailure } from './path-guard.js';
import { inputSchema, parseToolArgs } from './tool-args.js';

const NAME = 'fs.list';

const ListArgs = z.strictObject({
  path: z
    .string()
    .min(1)
    .optional()
    .describe('Directory to list: relative to the working directory, or absolute (default ".").'),
});

/**
 * `fs.list`: the entries of one directory with their type and, for files, their size. Symlinks are
 * shown as symlinks and not followed: where one points is checked when it is opened. The entries
 * are read from the directory the guard opened, through its descriptor.
 */
export function fsListTool(context: BuiltinContext): Tool {
  const max = context.limits.listEntries;
  return {
    def: {
      name: NAME,
      description: `List a directory: each entry with its type and, for files, size in bytes (at most ${max} entries).`,
      input_schema: inputSchema(ListArgs),
    },
    trifecta: FILE_TOOL_TRIFECTA,
    run: async (raw, { signal }) => {
      const parsed = parseToolArgs(NAME, ListArgs, raw);
      if (!parsed.ok) return toolRefusal(parsed.message);
      const opened = await context.guard.open(NAME, 'dir', parsed.args.path ?? '.', { signal });
      if (!opened.ok) return openFailure(opened);
      const { handle, shown } = opened;
      try {
        let entries: Dirent[];
        try {
          entries = await readdir(fdPath(handle), { withFileTypes: true });
        } catch (error) {
          return toolError(`\`${NAME}\`: ${shown} ${describeFsError(error)}.`);
        }
        entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
        const listed = entries.slice(0, max);
        const lines = await Promise.all(listed.map((entry) => describeEntry(handle, entry)));
        const header = `${shown}: ${entries.length} ${entries.length === 1 ? 'entry' : 'entries'}`;
        const more = entries.length - listed.length;
        const footer = more > 0 ? [`[${more} more entries not shown]`] : [];
        return { content: [header, ...lines, ...footer].join('\n'), isError: false };
      } finally {
        await handle.close();
      }
    },
  };
}

async function describeEntry(dir: FileHandle, entry: Dirent): Promise<string> {
  if (entry.isDirectory()) return `${entry.name}/ (dir)`;
  if (entry.isSymbolicLink()) return `${entry.name} (symlink)`;
  if (!entry.isFile()) return `${entry.name} (other)`;
  try {
    // Through the directory's descriptor, and lstat does not follow the name if it became a link.
    const stats = await lstat(fdPath(dir, entry.name));
    return `${entry.name} (file, ${stats.size} bytes)`;
  } catch {
    // Removed between readdir and lstat: still worth listing, just without a size.
    return `${entry.name} (file)`;
  }
}
