import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readSync,
  readdirSync,
  readlinkSync,
} from 'node:fs';
import { canonicalPath } from '../../authority/index.js';

/** What the sandbox planner needs to know of the filesystem; a fake stands in for it in tests. */
export interface FsView {
  /** What is at `p`, without following a final symlink. */
  kind(p: string): 'file' | 'dir' | 'symlink' | 'other' | 'missing';
  /** Where the symlink at `p` points, as written. */
  readlink(p: string): string;
  /**
   * The real path of the absolute path `p` through every symlink; a path that does not exist yet
   * resolves through its nearest existing parent.
   */
  real(p: string): string;
  /** The names of the directories (not symlinks to them) directly in `dir`; none if unreadable. */
  subdirs(dir: string): string[];
  /** The start of the regular file `p` as text (a `.git` file, a git config), or `undefined`. */
  readText(p: string): string | undefined;
}

/** Bytes of a file `readText` reads: a pointer or a config, never a large file. */
const TEXT_BYTES = 64 * 1024;

/** The machine's filesystem, read synchronously (a handful of calls per command). */
export const nodeFsView: FsView = {
  kind(p) {
    try {
      const stats = lstatSync(p);
      if (stats.isSymbolicLink()) return 'symlink';
      if (stats.isDirectory()) return 'dir';
      return stats.isFile() ? 'file' : 'other';
    } catch {
      return 'missing';
    }
  },
  readlink: (p) => readlinkSync(p),
  // A dangling link is followed to where it points, as a write through it would go.
  real: (p) => canonicalPath(p),
  subdirs(dir) {
    try {
      return readdirSync(dir, { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name);
    } catch {
      return [];
    }
  },
  readText(p) {
    let fd: number | undefined;
    try {
      // Never through a link, never blocking on a FIFO put there in the meantime.
      fd = openSync(p, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
      if (!fstatSync(fd).isFile()) return undefined;
      const buffer = Buffer.alloc(TEXT_BYTES);
      const read = readSync(fd, buffer, 0, TEXT_BYTES, 0);
      return buffer.subarray(0, read).toString('utf8');
    } catch {
      return undefined;
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  },
};
