import { lstatSync, rmSync } from 'node:fs';
import path from 'node:path';
import { sweepNestedRepos } from './sweep-nested-repos.js';

/**
 * How long before a command's start a change still counts as the command's: file change times come
 * from a coarse clock, and a change an instant before the start is as suspect as one after it.
 */
const CLOCK_SLACK_MS = 50;

/**
 * Removes a `commondir` a sandboxed command planted in one of `gitDirs` (writable git directories
 * that had none when it started: `PreparedCommand.gitDirs`) and says what was removed, one line
 * each. git honours `commondir` even in a repository's main git directory: it then takes config
 * (an fsmonitor, hooks) from the directory it names, and the user's next `git status` runs that.
 * No mount can keep a file that does not exist yet from being created, so it is taken away once
 * the command, and every process it started, has ended. Given the command's start (`startedAt`,
 * ms), a repository nested in one of them and made a launcher during the command is disabled too
 * (`sweepNestedRepos`).
 */
export function sweepPlantedPointers(gitDirs: readonly string[], startedAt?: number): string[] {
  const removed: string[] = [];
  for (const dir of gitDirs) {
    const planted = path.join(dir, 'commondir');
    if (!exists(planted)) continue;
    try {
      rmSync(planted, { recursive: true, force: true });
      removed.push(
        `removed ${planted}, which the command created: it would point the repository at ` +
          'another git directory, whose config git would run outside the sandbox',
      );
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      removed.push(
        `could not remove ${planted}, which the command created (${code}): do not run git in ` +
          `${path.dirname(dir)} before removing it`,
      );
    }
  }
  if (startedAt !== undefined)
    removed.push(...sweepNestedRepos(gitDirs, startedAt - CLOCK_SLACK_MS));
  return removed;
}

function exists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}
