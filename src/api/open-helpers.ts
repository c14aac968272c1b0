import path from 'node:path';
import { canonicalPath } from '../authority/index.js';
import { MAX_DURATION_MS, parseDuration } from '../config/index.js';
import { ArborError } from '../protocol/index.js';
import type { RunConfig } from '../runtime/index.js';
import type { ChildCommand } from '../supervisor/index.js';
import type { HostTool } from '../tools/index.js';
import type { ArborOptions } from './options.js';

/** A duration option: milliseconds, or text such as `2m`. */
export function msOf(value: string | number | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value <= 0 || value > MAX_DURATION_MS)
      throw new ArborError(
        'usage',
        `\`${name}\` must be a positive number of milliseconds up to ${MAX_DURATION_MS} (24 days), got ${value}.`,
      );
    return value;
  }
  return parseDuration(value, name);
}

export function commandOf(option: ArborOptions['childCommand']): ChildCommand | undefined {
  if (option === undefined) return undefined;
  if (typeof option !== 'string') return { command: option.command, args: option.args ?? [] };
  const [command = '', ...args] = option.trim().split(/\s+/);
  if (command === '') throw new ArborError('config', 'Arbor.open: `childCommand` is empty.');
  return { command, args };
}

export function checkTools(tools: readonly HostTool[]): void {
  const seen = new Set<string>();
  for (const tool of tools) {
    if (seen.has(tool.name))
      throw new ArborError('config', `Arbor.open: two host tools are named \`${tool.name}\`.`);
    seen.add(tool.name);
  }
}

/** The run's config with `paths` added to its grant's `fs_read` (as the real paths they are). */
export function withReadable(
  config: RunConfig,
  paths: readonly string[] | undefined,
  cwd: string,
): RunConfig {
  const read = config.grant.fs_read;
  if (paths === undefined || paths.length === 0 || read === 'all') return config;
  const added = paths.map((entry) => canonicalPath(path.resolve(cwd, entry)));
  return { ...config, grant: { ...config.grant, fs_read: [...read, ...added] } };
}
