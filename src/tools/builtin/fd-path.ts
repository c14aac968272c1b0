import { constants } from 'node:fs';
import { stat, type FileHandle } from 'node:fs/promises';

/**
 * Node has no `openat`, but Linux gives one through procfs: `/proc/self/fd/N` is the directory
 * descriptor N holds, whatever has been renamed or swapped since, so opening
 * `/proc/self/fd/N/name` looks `name` up in that directory and nowhere else. With `O_NOFOLLOW`
 * that is `openat(N, name, O_NOFOLLOW)`; `mkdir`, `readlink` and `lstat` through the same path act
 * on `name` in that directory without following it. The file tools reach every path this way.
 */
const FD_DIR = '/proc/self/fd';

/** `/proc/self/fd/N` (the directory or file the handle holds), or `name` inside that directory. */
export function fdPath(handle: FileHandle, name?: string): string {
  return name === undefined ? `${FD_DIR}/${handle.fd}` : `${FD_DIR}/${handle.fd}/${name}`;
}

/**
 * Open flags of the walk. Every open refuses a symlink as its last component (`O_NOFOLLOW`) and
 * none blocks on a FIFO planted where a file was expected (`O_NONBLOCK`; for a regular file it
 * changes nothing). `O_DIRECTORY` makes the kernel itself refuse anything but a directory.
 */
export const OPEN_FLAGS = {
  dir: constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW,
  read: constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
  edit: constants.O_RDWR | constants.O_NOFOLLOW | constants.O_NONBLOCK,
  write: constants.O_WRONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
  /** A new file only: `O_EXCL` fails on any existing entry, a dangling symlink included. */
  create:
    constants.O_WRONLY |
    constants.O_CREAT |
    constants.O_EXCL |
    constants.O_NOFOLLOW |
    constants.O_NONBLOCK,
} as const;

let support: Promise<string | undefined> | undefined;

/**
 * Why this system cannot open paths through `/proc/self/fd`, or `undefined` when it can. Checked
 * once. Without it there is no race-free way to open a path from Node, and the file tools refuse
 * rather than fall back to checking a path and then opening it by name.
 */
export function fdPathsMissing(): Promise<string | undefined> {
  support ??= probe();
  return support;
}

async function probe(): Promise<string | undefined> {
  const why =
    `the file tools open paths only through ${FD_DIR} (Linux procfs), so that no symlink ` +
    'swapped in between a check and an open can redirect them';
  if (process.platform !== 'linux') {
    return `${why}; this system is ${process.platform}, and arbor's file tools need Linux`;
  }
  try {
    if ((await stat(FD_DIR)).isDirectory()) return undefined;
  } catch {
    // Missing or unreadable: said below.
  }
  return `${why}; ${FD_DIR} is not available here (is /proc mounted?)`;
}
