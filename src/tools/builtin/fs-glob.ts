import path from 'node:path';
import { z } from 'zod';
import { toolError, toolRefusal, type Tool } from '../tool.js';
import { FILE_TOOL_TRIFECTA, type BuiltinContext } from './builtin-context.js';
import { globUnder } from './glob-under.js';
import { openFailure } from './path-guard.js';
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
 * `fs.glob`: files whose path matches a pattern. The search starts from the directory the guard
 * opened and reaches every directory below it through descriptors (`glob-under.ts`); symlinks are
 * neither descended into nor listed (a link can point anywhere, and a loop would never end). A
 * match inside the run's own state or an `.arbor` directory is left out, so the answer lists only
 * files the agent could read.
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
    trifecta: FILE_TOOL_TRIFECTA,
    run: async (raw, { signal }) => {
      const parsed = parseToolArgs(NAME, GlobArgs, raw);
      if (!parsed.ok) return toolRefusal(parsed.message);
      const { pattern, path: base = '.' } = parsed.args;
      if (path.isAbsolute(pattern)) {
        return toolError(
          `\`${NAME}\`: expected a relative pattern, got \`${pattern}\`; put the directory in \`path\`.`,
        );
      }
      const root = await context.guard.open(NAME, 'dir', base, { signal });
      if (!root.ok) return openFailure(root);
      let found: string[];
      try {
        found = await globUnder(root.handle, root.real, pattern, {
          dot: pattern
            .split('/')
            .some((part) => part.startsWith('.') && part !== '.' && part !== '..'),
          signal,
        });
      } finally {
        await root.handle.close();
      }
      const fence = await context.guard.fence('fs_read', { signal });
      const sorted = found.sort();
      const readable: string[] = [];
      let looked = 0;
      while (looked < sorted.length && readable.length < max) {
        const match = sorted[looked++] ?? '';
        // Under the opened directory, reached without links: its real path is the root's joined.
        if (fence.refusal(path.posix.join(root.real, match)) !== undefined) continue;
        readable.push(toDisplay(context.cwd, path.join(root.shown, match)));
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
