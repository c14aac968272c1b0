import type { Dirent } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { toolError, toolRefusal, type Tool } from '../tool.js';
import type { BuiltinContext } from './builtin-context.js';
import { describeFsError } from './file-io.js';
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
 * shown as symlinks and not followed: where one points is checked when it is opened.
 */
export function fsListTool(context: BuiltinContext): Tool {
  const max = context.limits.listEntries;
  return {
    def: {
      name: NAME,
      description: `List a directory: each entry with its type and, for files, size in bytes (at most ${max} entries).`,
      input_schema: inputSchema(ListArgs),
    },
    run: async (raw, { signal }) => {
      const parsed = parseToolArgs(NAME, ListArgs, raw);
      if (!parsed.ok) return toolRefusal(parsed.message);
      const checked = await context.guard.check(NAME, 'fs_read', parsed.args.path ?? '.', {
        signal,
      });
      if (!checked.ok) return toolRefusal(checked.message);
      let entries: Dirent[];
      try {
        entries = await readdir(checked.real, { withFileTypes: true });
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        const why =
          code === 'ENOTDIR' ? 'is not a directory (use `fs.read`)' : describeFsError(error);
        return toolError(`\`${NAME}\`: ${checked.shown} ${why}.`);
      }
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      const shown = entries.slice(0, max);
      const lines = await Promise.all(shown.map((entry) => describeEntry(checked.real, entry)));
      const header = `${checked.shown}: ${entries.length} ${entries.length === 1 ? 'entry' : 'entries'}`;
      const more = entries.length - shown.length;
      const footer = more > 0 ? [`[${more} more entries not shown]`] : [];
      return { content: [header, ...lines, ...footer].join('\n'), isError: false };
    },
  };
}

async function describeEntry(dir: string, entry: Dirent): Promise<string> {
  if (entry.isDirectory()) return `${entry.name}/ (dir)`;
  if (entry.isSymbolicLink()) return `${entry.name} (symlink)`;
  if (!entry.isFile()) return `${entry.name} (other)`;
  try {
    const stats = await lstat(path.join(dir, entry.name));
    return `${entry.name} (file, ${stats.size} bytes)`;
  } catch {
    // Removed between readdir and lstat: still worth listing, just without a size.
    return `${entry.name} (file)`;
  }
}
