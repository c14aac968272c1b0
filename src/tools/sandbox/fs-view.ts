import { lstatSync, readlinkSync } from 'node:fs';
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
}

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
};
