import path from 'node:path';
import { isInside } from '../../src/authority/index.js';
import type { FsView } from '../../src/tools/index.js';

/**
 * A small machine for the sandbox planner: directories and files that exist (their parents
 * too), a few symlinks, and the text of some files (each a file too).
 */
export function fakeFs(
  entries: Record<string, 'dir' | 'file'>,
  links: Record<string, string> = {},
  texts: Record<string, string> = {},
): FsView {
  const kinds = new Map<string, 'dir' | 'file'>(Object.entries(entries));
  for (const p of Object.keys(texts)) kinds.set(p, 'file');
  for (const p of [...kinds.keys(), ...Object.keys(links)])
    for (let d = path.dirname(p); d !== '/'; d = path.dirname(d))
      if (!kinds.has(d)) kinds.set(d, 'dir');
  const kind: FsView['kind'] = (p) =>
    p in links ? 'symlink' : (kinds.get(p) ?? (p === '/' ? 'dir' : 'missing'));
  return {
    kind,
    readlink: (p) => links[p] ?? '',
    real: (p) => {
      for (const [link, target] of Object.entries(links)) {
        if (isInside(link, p))
          return path.resolve(path.dirname(link), target, path.relative(link, p));
      }
      return p;
    },
    subdirs: (dir) =>
      [...kinds.entries()]
        .filter(([p, k]) => k === 'dir' && path.dirname(p) === dir && p !== dir)
        .map(([p]) => path.basename(p)),
    readText: (p) => (kind(p) === 'file' ? (texts[p] ?? '') : undefined),
  };
}
