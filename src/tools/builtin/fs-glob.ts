import { stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { toolError, toolRefusal, type Tool } from '../tool.js';
import type { BuiltinContext } from './builtin-context.js';
import { inputSchema, parseToolArgs } from './tool-args.js';

const NAME = 'fs.glob';

const GlobArgs = z.strictObject({
  pattern: z
    .string()
    .min(1)
    .describe('Glob pattern relative to `path`, e.g. "src/**/*.ts" or "*.{md,txt}".'),
  path: z
    .string()
    .min(1)
    .optional()
    .describe('Directory to search from: relative to the working directory (default ".").'),
});

/**
 * `fs.glob`: files whose path matches a pattern. Symlinked directories are not descended into
 * (a link can point anywhere, and a loop would never end), and every match is checked against
 * `fs_read` through its real path, so the answer lists only files the agent could read.
 */
export function fsGlobTool(context: BuiltinContext): Tool {
  const max = context.limits.globResults;
  return {
    def: {
      name: NAME,
      description:
        `Find files by glob pattern (\`*\`, \`**\`, \`?\`, \`{a,b}\`); returns matching paths relative ` +
        `to the working directory, sorted, at most ${max}. Hidden files match only when the pattern names them.`,
      input_schema: inputSchema(GlobArgs),
    },
    run: async (raw, { signal }) => {
      const parsed = parseToolArgs(NAME, GlobArgs, raw);
      if (!parsed.ok) return toolRefusal(parsed.message);
      const { pattern, path: base = '.' } = parsed.args;
      if (path.isAbsolute(pattern)) {
        return toolError(
          `\`${NAME}\`: expected a relative pattern, got \`${pattern}\`; put the directory in \`path\`.`,
        );
      }
      const root = await context.guard.check(NAME, 'fs_read', base, { signal });
      if (!root.ok) return toolRefusal(root.message);
      if (!(await isDirectory(root.real))) {
        return toolError(`\`${NAME}\`: ${root.shown} is not a directory.`);
      }
      // Loaded on first use, like ajv: a child that never globs does not pay for it at start-up.
      const { glob } = await import('tinyglobby');
      const found = await glob(pattern, {
        cwd: root.real,
        absolute: true,
        followSymbolicLinks: false,
        expandDirectories: false,
        dot: pattern
          .split('/')
          .some((part) => part.startsWith('.') && part !== '.' && part !== '..'),
        signal,
      });
      const sorted = found.sort();
      const readable: string[] = [];
      let looked = 0;
      // Checking costs a realpath per match: stop once the answer is full.
      while (looked < sorted.length && readable.length < max) {
        const match = sorted[looked++] ?? '';
        // The match is a real path under the real root; show it as the model would name it.
        const shown = path.join(root.shown, path.relative(root.real, match));
        const checked = await context.guard.check(NAME, 'fs_read', shown, { signal });
        if (checked.ok) readable.push(toDisplay(context.cwd, shown));
      }
      return { content: render(readable, sorted.length - looked, pattern), isError: false };
    },
  };
}

function render(paths: readonly string[], unchecked: number, pattern: string): string {
  if (paths.length === 0) return `No readable files match \`${pattern}\`.`;
  const note = unchecked > 0 ? `\n[${unchecked} more matches not shown; narrow the pattern]` : '';
  return paths.join('\n') + note;
}

/** Relative to cwd when under it (shorter, and what the model passes back), else absolute. */
function toDisplay(cwd: string, abs: string): string {
  const rel = path.relative(cwd, abs);
  return rel === '' || rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)
    ? abs
    : rel;
}

async function isDirectory(real: string): Promise<boolean> {
  try {
    return (await stat(real)).isDirectory();
  } catch {
    return false;
  }
}
