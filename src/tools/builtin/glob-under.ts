import type { Dirent } from 'node:fs';
import { open, readdir, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { FileSystemAdapter } from 'tinyglobby';
import { OPEN_FLAGS, fdPath } from './fd-path.js';

type Readdir = NonNullable<FileSystemAdapter['readdir']>;

/**
 * Directories one search lists at a time. fdir asks for every subdirectory as soon as it sees it,
 * and each listing here holds a descriptor while it waits for the thread pool: unbounded, a wide
 * tree could run the process out of descriptors.
 */
const LISTINGS_AT_ONCE = 16;
type ReaddirCallback = (error: NodeJS.ErrnoException | null, entries: Dirent[]) => void;

/**
 * Paths under the opened directory `root` (whose real path is `rootReal`) that match `pattern`,
 * relative to it. tinyglobby does the matching; every directory it lists is reached from `root`'s
 * descriptor one component at a time without following a symlink (the same walk as the file
 * tools, with links not followed at all), so a symlink swapped in for a directory mid-search is
 * never entered, and nothing outside `root` is ever listed: tinyglobby moves its start up for a
 * pattern beginning with `..`, and such a start is refused here.
 */
export async function globUnder(
  root: FileHandle,
  rootReal: string,
  pattern: string,
  { dot, signal }: { dot: boolean; signal?: AbortSignal },
): Promise<string[]> {
  // Loaded on first use, like ajv: a child that never globs does not pay for it at start-up.
  const { glob } = await import('tinyglobby');
  return glob(pattern, {
    cwd: rootReal,
    absolute: false,
    followSymbolicLinks: false,
    expandDirectories: false,
    dot,
    fs: { readdir: readdirUnder(root, rootReal) },
    ...(signal === undefined ? {} : { signal }),
  });
}

/**
 * fdir (under tinyglobby) calls only `readdir(dir, { withFileTypes: true }, callback)`, with `dir`
 * an absolute path under the search's start; Node's `readdir` type has overloads this one form
 * cannot satisfy, hence the cast.
 */
function readdirUnder(root: FileHandle, rootReal: string): Readdir {
  const gate = new Gate(LISTINGS_AT_ONCE);
  const list = (dir: string, _options: unknown, callback: ReaddirCallback): void => {
    gate
      .run(() => listUnder(root, rootReal, dir))
      .then(
        (entries) => {
          callback(null, entries);
        },
        (error: unknown) => {
          callback(error as NodeJS.ErrnoException, []);
        },
      );
  };
  return list as unknown as Readdir;
}

/** Lists `dir` (a path at or under `rootReal`) by walking to it from `root` without links. */
async function listUnder(root: FileHandle, rootReal: string, dir: string): Promise<Dirent[]> {
  const rel = path.posix.relative(rootReal, dir);
  if (rel === '..' || rel.startsWith('../') || path.posix.isAbsolute(rel)) {
    throw Object.assign(new Error(`${dir} is outside the search's directory ${rootReal}`), {
      code: 'ENOENT',
    });
  }
  const names = rel === '' ? [] : rel.split('/');
  let held = root;
  try {
    for (const name of names) {
      const next = await open(fdPath(held, name), OPEN_FLAGS.dir);
      if (held !== root) await held.close();
      held = next;
    }
    return await readdir(fdPath(held), { withFileTypes: true });
  } finally {
    if (held !== root) await held.close();
  }
}

/** Runs at most `size` tasks at once; the others wait in order. */
class Gate {
  #free: number;
  readonly #waiting: (() => void)[] = [];

  constructor(size: number) {
    this.#free = size;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#free > 0) this.#free -= 1;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = this.#waiting.shift();
      if (next === undefined) this.#free += 1;
      else next();
    }
  }
}
