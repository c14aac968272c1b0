import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** A gitlink's mode in the index: a commit of another repository (a submodule, a nested repo). */
const GITLINK = 0o160000;
/** The fixed part of an index entry before its name, by object id length. */
const FIXED = { sha1: 62, sha256: 74 } as const;

/** The last answer per index file, while the file is unchanged: most commands never touch it. */
const cache = new Map<string, { key: string; links: string[] }>();

/**
 * The paths (relative to the work tree) of the gitlinks in the index of git directory `gitDir`:
 * the entries git treats as other repositories, which `git status` and `git diff` go into (and so
 * run those repositories' configuration). Reads index versions 2, 3 and 4, SHA-1 and SHA-256;
 * an index it cannot read gives none. Kept per file while its size and times are unchanged.
 */
export function gitlinksOf(gitDir: string): string[] {
  const file = path.join(gitDir, 'index');
  let key: string;
  try {
    const stats = statSync(file, { bigint: true });
    key = `${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}:${stats.ino}`;
  } catch {
    return [];
  }
  const seen = cache.get(file);
  if (seen?.key === key) return seen.links;
  let links: string[];
  try {
    links = parseGitlinks(readFileSync(file), objectFormat(gitDir));
  } catch {
    links = [];
  }
  cache.set(file, { key, links });
  return links;
}

/** `sha256` where the repository says so (`extensions.objectformat`), else `sha1`. */
function objectFormat(gitDir: string): keyof typeof FIXED {
  try {
    const config = readFileSync(path.join(gitDir, 'config'), 'utf8');
    return /^\s*objectformat\s*=\s*sha256\s*$/im.test(config) ? 'sha256' : 'sha1';
  } catch {
    return 'sha1';
  }
}

/** The gitlink entries' names in the bytes of an index file (git's `index-format.txt`). */
export function parseGitlinks(data: Buffer, format: keyof typeof FIXED = 'sha1'): string[] {
  if (data.length < 12 || data.toString('latin1', 0, 4) !== 'DIRC') return [];
  const version = data.readUInt32BE(4);
  if (version < 2 || version > 4) return [];
  const count = data.readUInt32BE(8);
  const fixed = FIXED[format];
  const links: string[] = [];
  let offset = 12;
  let previous: Buffer = Buffer.alloc(0);
  for (let i = 0; i < count; i += 1) {
    const start = offset;
    if (start + fixed > data.length) return links;
    const mode = data.readUInt32BE(start + 24);
    const flags = data.readUInt16BE(start + fixed - 2);
    offset = start + fixed + (version >= 3 && (flags & 0x4000) !== 0 ? 2 : 0);
    let name: Buffer;
    if (version === 4) {
      // The name is the previous one less its last `strip` bytes, then the bytes up to a NUL.
      let byte = data[offset++] ?? 0;
      let strip = byte & 0x7f;
      while ((byte & 0x80) !== 0) {
        byte = data[offset++] ?? 0;
        strip = ((strip + 1) << 7) | (byte & 0x7f);
      }
      const end = data.indexOf(0, offset);
      if (end < 0 || strip > previous.length) return links;
      name = Buffer.concat([
        previous.subarray(0, previous.length - strip),
        data.subarray(offset, end),
      ]);
      offset = end + 1;
    } else {
      const end = data.indexOf(0, offset);
      if (end < 0) return links;
      name = data.subarray(offset, end);
      // Entries are padded with 1 to 8 NULs to a multiple of 8 bytes.
      offset = start + Math.ceil((end - start + 1) / 8) * 8;
    }
    previous = name;
    if ((mode & 0o170000) === GITLINK) links.push(name.toString('utf8'));
  }
  return links;
}
