import path from 'node:path';
import { isInside } from '../../authority/index.js';
import type { Caveats, ProtectedPath } from '../../protocol/index.js';
import type { FsView } from './fs-view.js';
import { guardGitDirs } from './git-guard.js';

/** Why a mount is there: for messages, and for the property test of what a sandbox may see. */
type MountWhy =
  'system' | 'toolchain' | 'fs_read' | 'fs_write' | 'private' | 'pin' | 'protect' | 'link';

/** One bubblewrap mount operation, applied in order (a later mount covers an earlier one). */
export type Mount =
  | { op: 'ro-bind' | 'bind'; src: string; dest: string; why: MountWhy }
  | { op: 'symlink'; target: string; dest: string; why: MountWhy }
  | { op: 'tmpfs' | 'dir' | 'remount-ro' | 'mask'; dest: string; why: MountWhy }
  | { op: 'proc' | 'dev'; dest: string; why: 'private' };

export interface SandboxSpec {
  /** The node's authority: its file axes become the mounts (its `net` is the egress proxy's). */
  caveats: Pick<Caveats, 'fs_read' | 'fs_write' | 'net'>;
  /** Absolute working directory of the command. */
  cwd: string;
  /** The run's own state, subtracted from every mount. */
  protect: readonly ProtectedPath[];
  /** The command's `PATH` entries: toolchains outside `/usr` are mounted read-only. */
  pathEntries: readonly string[];
  /** The user's home directory, kept as `HOME` only when the grant lets the command write it. */
  home: string | undefined;
}

export interface MountPlan {
  mounts: Mount[];
  /** Grant entries not mounted: a symlink where a real path was granted, a path under `/proc`. */
  skipped: SkippedEntry[];
  /** Protected paths that do not exist yet but could be created: made empty before the start. */
  placeholders: { path: string; kind: 'file' | 'dir' }[];
  /** `HOME` inside the sandbox. */
  home: string;
  /** Where the command starts. */
  cwd: string;
  /** Writable git directories with no `commondir` yet: one there after the command was planted. */
  gitDirs: string[];
  /** Git launch paths that are symlinks the command could replace: it must not run. */
  unprotectable: string[];
}

/** Where a command's private home lives when the grant does not include the real one. */
const PRIVATE_HOME = '/tmp/home';

/** System directories needed to run programs, mounted read-only (or as the symlinks they are). */
const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

/**
 * From `/etc`, only what programs need to run, resolve names and check certificates: no shadow
 * file, no machine credentials. `alternatives`, `ld.so.cache` and `localtime` hold no secrets and
 * many Debian programs (`awk`, `editor`, `java`) are symlinks through `alternatives`.
 */
const ETC_FILES = [
  '/etc/passwd',
  '/etc/group',
  '/etc/hosts',
  '/etc/nsswitch.conf',
  '/etc/resolv.conf',
  '/etc/ssl',
  '/etc/ca-certificates',
  '/etc/alternatives',
  '/etc/ld.so.cache',
  '/etc/localtime',
];

/** Never bound from the host: the sandbox has its own `/proc` and `/dev`. */
const NEVER_BOUND = ['/proc', '/dev'];

/** A `PATH` entry so named is a toolchain's; its parent (the toolchain's prefix) is mounted. */
const TOOLCHAIN_BIN_NAMES = new Set(['bin', 'sbin', 'shims']);

interface Bind {
  dest: string;
  rw: boolean;
  why: MountWhy;
}

/**
 * The mounts of a command's sandbox, in the order bubblewrap applies them: the system
 * directories read-only, a private `/proc`, `/dev`, `/tmp` and home, the toolchains on `PATH`
 * read-only, the node's `fs_read` read-only and its `fs_write` read-write — then the run's own
 * state taken away again: a store file is masked by an empty device, a directory by an empty
 * read-only tmpfs, a file that may be read by a read-only bind of itself, and the directories
 * between a writable mount and a protected path are pinned so they cannot be renamed away.
 * Everything is mounted at its real path (symlinks resolved), so what a command reaches is what
 * the caveats name. Git directories it could write keep what git runs read-only (`guardGitDirs`).
 */
export function planMounts(spec: SandboxSpec, fs: FsView): MountPlan {
  const isRoot = (entry: string): boolean => path.resolve(spec.cwd, entry) === '/';
  const { fs_read: read, fs_write: write } = spec.caveats;
  const readAll = read === 'all' || read.some(isRoot);
  const writeAll = write === 'all' || write.some(isRoot);
  const mounts: Mount[] = [];
  if (writeAll) mounts.push({ op: 'bind', src: '/', dest: '/', why: 'fs_write' });
  else if (readAll) mounts.push({ op: 'ro-bind', src: '/', dest: '/', why: 'fs_read' });
  else mounts.push(...systemMounts(fs));
  mounts.push(
    { op: 'proc', dest: '/proc', why: 'private' },
    { op: 'dev', dest: '/dev', why: 'private' },
    { op: 'tmpfs', dest: '/tmp', why: 'private' },
  );

  const { binds, links, skipped } = writeAll
    ? { binds: [], links: [], skipped: [] }
    : grantBinds(spec, fs, readAll);
  const realHome = spec.home === undefined ? undefined : fs.real(spec.home);
  const keepHome =
    realHome !== undefined && (writeAll || binds.some((b) => b.rw && isInside(b.dest, realHome)));
  if (!keepHome) mounts.push({ op: 'dir', dest: PRIVATE_HOME, why: 'private' });
  for (const bind of binds)
    mounts.push({
      op: bind.rw ? 'bind' : 'ro-bind',
      src: bind.dest,
      dest: bind.dest,
      why: bind.why,
    });
  for (const link of links)
    if (!binds.some((b) => isInside(b.dest, path.dirname(link.dest)))) mounts.push(link);

  const root: Access = writeAll ? 'rw' : readAll ? 'ro' : 'none';
  const access = (p: string): Access => accessOf(p, binds, root);
  const secrets = toolchainSecrets(binds, fs);
  const git = guardGitDirs(
    {
      roots: binds.filter((b) => b.rw).map((b) => b.dest),
      cwd: fs.real(spec.cwd),
      fsWrite: spec.caveats.fs_write,
    },
    fs,
    (p) => access(p) === 'rw',
  );
  const gitProtect = git.protect.filter((g) => !spec.protect.some((p) => p.path === g.path));
  const { protections, placeholders } = protect(
    [...spec.protect, ...secrets, ...gitProtect],
    fs,
    binds,
    access,
    writeAll,
  );
  mounts.push(...protections);
  for (const entry of git.reopen)
    mounts.push({ op: 'bind', src: entry, dest: entry, why: 'fs_write' });

  const cwd = fs.real(spec.cwd);
  if (access(cwd) === 'none' && cwd !== '/') mounts.push({ op: 'dir', dest: cwd, why: 'private' });
  return {
    mounts,
    skipped,
    placeholders,
    home: keepHome && spec.home !== undefined ? spec.home : PRIVATE_HOME,
    cwd,
    gitDirs: git.gitDirs,
    unprotectable: git.unprotectable,
  };
}

function systemMounts(fs: FsView): Mount[] {
  const out: Mount[] = [];
  for (const dir of SYSTEM_DIRS) {
    const kind = fs.kind(dir);
    if (kind === 'symlink')
      out.push({ op: 'symlink', target: fs.readlink(dir), dest: dir, why: 'system' });
    else if (kind === 'dir') out.push({ op: 'ro-bind', src: dir, dest: dir, why: 'system' });
  }
  for (const file of ETC_FILES) {
    if (fs.kind(file) === 'missing') continue;
    const real = fs.real(file);
    if (fs.kind(real) !== 'missing')
      out.push({ op: 'ro-bind', src: real, dest: file, why: 'system' });
  }
  return out;
}

/**
 * The toolchain, `fs_read` and `fs_write` binds, shallow first: a read-only bind inside a writable
 * one is dropped (the writable one already shows it), so a path is writable exactly when some
 * `fs_write` entry holds it.
 *
 * A grant entry is bound only where it is its own real path. The run's grant is made of real
 * paths when it starts, so an entry that resolves elsewhere now — `out` after a parent ran `ln -s
 * ../outside out` and asked for it in a child's grant, or a link that replaced a directory — is
 * skipped (and reported), never followed: following it would show what no ancestor held.
 */
function grantBinds(
  spec: SandboxSpec,
  fs: FsView,
  readAll: boolean,
): { binds: Bind[]; links: Mount[]; skipped: SkippedEntry[] } {
  const entries: Bind[] = [];
  const skipped: SkippedEntry[] = [];
  const grant = (p: string, rw: boolean, why: MountWhy): void => {
    const lexical = path.resolve(spec.cwd, p);
    if (NEVER_BOUND.some((root) => isInside(root, lexical))) {
      skipped.push({ path: lexical, why: 'the sandbox has its own' });
      return;
    }
    const real = fs.real(lexical);
    if (real !== lexical) {
      skipped.push({ path: lexical, why: `it is a symlink now, to ${real}` });
      return;
    }
    if (fs.kind(real) !== 'missing') entries.push({ dest: real, rw, why });
  };
  if (!readAll && spec.caveats.fs_read !== 'all')
    for (const p of spec.caveats.fs_read) grant(p, false, 'fs_read');
  if (spec.caveats.fs_write !== 'all')
    for (const p of spec.caveats.fs_write) grant(p, true, 'fs_write');
  const links = readAll ? [] : toolchains(spec, fs, entries);
  // A bind inside another that already shows it as well (the same way, or writably) adds nothing.
  const kept = entries.filter(
    (b) => !entries.some((o) => o.dest !== b.dest && isInside(o.dest, b.dest) && (o.rw || !b.rw)),
  );
  const byDest = new Map<string, Bind>();
  for (const bind of kept) {
    const seen = byDest.get(bind.dest);
    if (seen === undefined || (bind.rw && !seen.rw)) byDest.set(bind.dest, bind);
  }
  return {
    binds: [...byDest.values()].sort((a, b) => depth(a.dest) - depth(b.dest)),
    links,
    skipped,
  };
}

/** Files in a toolchain's prefix that hold credentials (a global `npmrc` may hold a token). */
const TOOLCHAIN_SECRETS = ['etc/npmrc', '.npmrc', 'credentials', 'credentials.toml'];

/** The credential files inside the mounted toolchains, masked like the store. */
function toolchainSecrets(binds: readonly Bind[], fs: FsView): ProtectedPath[] {
  return binds
    .filter((bind) => bind.why === 'toolchain')
    .flatMap((bind) => TOOLCHAIN_SECRETS.map((file) => path.join(bind.dest, file)))
    .filter((file) => fs.kind(file) === 'file')
    .map((file) => ({ path: file, kind: 'file', readable: false }));
}

/** A grant entry the sandbox did not mount, and why. */
interface SkippedEntry {
  path: string;
  why: string;
}

/**
 * The toolchains on `PATH`, read-only, added to `entries`; a symlink at an entry's written path
 * when it differs from the real one. A `PATH` entry the grant already shows is left to the grant
 * (an agent may write there, so its links are not followed); one whose real path would show `/`,
 * `/proc` or a home directory is not mounted at all.
 */
function toolchains(spec: SandboxSpec, fs: FsView, entries: Bind[]): Mount[] {
  const links: Mount[] = [];
  const home = spec.home === undefined ? undefined : path.resolve(spec.home);
  const granted = (p: string): boolean => entries.some((b) => isInside(b.dest, p));
  for (const entry of spec.pathEntries) {
    const dir = toolchainRoot(entry, home);
    if (dir === undefined || SYSTEM_DIRS.some((sys) => isInside(sys, dir))) continue;
    if (granted(dir) || fs.kind(dir) === 'missing') continue;
    const real = fs.real(dir);
    const tooWide =
      NEVER_BOUND.some((root) => isInside(real, root)) ||
      (home !== undefined && isInside(real, home)) ||
      SYSTEM_DIRS.some((sys) => isInside(sys, real)) ||
      granted(real);
    if (tooWide) continue;
    entries.push({ dest: real, rw: false, why: 'toolchain' });
    if (real !== dir && !links.some((m) => m.dest === dir))
      links.push({ op: 'symlink', target: real, dest: dir, why: 'link' });
  }
  return links;
}

/**
 * The directory to mount for a `PATH` entry: a toolchain's prefix for an entry named `bin`,
 * `sbin` or `shims` deep enough to be one (`~/.nvm/versions/node/v22`, `/opt/go`), so the files
 * it links to beside its `bin` are there too; otherwise the entry itself. A prefix that is `/`, a
 * home directory, or a directory directly in a home directory, `/home` or `/` (`~/.cargo`,
 * `~/.local`, `/opt`) is too wide: it holds more than a toolchain (credentials, keyrings,
 * history), so only the `bin` directory is mounted; grant such a toolchain's home in `fs_read` to
 * use it. `undefined` for a relative entry.
 */
export function toolchainRoot(entry: string, home: string | undefined): string | undefined {
  if (!path.isAbsolute(entry)) return undefined;
  const dir = path.resolve(entry);
  if (!TOOLCHAIN_BIN_NAMES.has(path.basename(dir))) return dir;
  const parent = path.dirname(dir);
  const homeDir = home === undefined ? undefined : path.resolve(home);
  const grandparent = path.dirname(parent);
  const tooWide =
    parent === '/' ||
    parent === homeDir ||
    grandparent === homeDir ||
    grandparent === '/home' ||
    grandparent === '/';
  return tooWide ? dir : parent;
}

type Access = 'rw' | 'ro' | 'none';

/**
 * What a command may do to the host path `p` once the grant is mounted (before the run's state
 * is taken away): the deepest bind holding it decides; the sandbox's own `/proc`, `/dev` and
 * `/tmp` hold nothing of the host's; past those, the root bind (`all`) or the system directories.
 */
function accessOf(p: string, binds: readonly Bind[], root: Access): Access {
  if (NEVER_BOUND.some((dir) => isInside(dir, p))) return 'none';
  const bound = binds.filter((b) => isInside(b.dest, p)).at(-1);
  if (bound !== undefined) return bound.rw ? 'rw' : 'ro';
  if (isInside('/tmp', p)) return 'none';
  if (root !== 'none') return root;
  return SYSTEM_DIRS.some((dir) => isInside(dir, p)) ? 'ro' : 'none';
}

function protect(
  list: readonly ProtectedPath[],
  fs: FsView,
  binds: readonly Bind[],
  access: (p: string) => Access,
  writeAll: boolean,
): { protections: Mount[]; placeholders: { path: string; kind: 'file' | 'dir' }[] } {
  const pins: Mount[] = [];
  const masks: Mount[] = [];
  const placeholders: { path: string; kind: 'file' | 'dir' }[] = [];
  const hidden: string[] = [];
  const ordered = [...list].sort((a, b) =>
    a.kind === b.kind ? depth(a.path) - depth(b.path) : a.kind === 'dir' ? -1 : 1,
  );
  for (const entry of ordered) {
    const real = fs.real(entry.path);
    if (hidden.some((dir) => isInside(dir, real))) continue;
    const reach = access(real);
    if (reach === 'none') continue;
    const kind = fs.kind(real);
    if (kind === 'missing') {
      // Where a command can neither create it nor ever read it, there is nothing to take away;
      // otherwise it is made (empty) now, so a mount can cover it before the command starts.
      if (reach !== 'rw' && entry.readable) continue;
      placeholders.push({ path: real, kind: entry.kind });
    }
    if (reach === 'rw') pins.push(...pinsFor(real, binds, writeAll, pins));
    const isDir = kind === 'missing' ? entry.kind === 'dir' : kind === 'dir';
    if (!entry.readable) {
      if (isDir) {
        masks.push(
          { op: 'tmpfs', dest: real, why: 'protect' },
          { op: 'remount-ro', dest: real, why: 'protect' },
        );
        hidden.push(real);
      } else {
        masks.push({ op: 'mask', dest: real, why: 'protect' });
      }
    } else if (reach === 'rw') {
      masks.push({ op: 'ro-bind', src: real, dest: real, why: 'protect' });
    }
  }
  return { protections: [...pins, ...masks], placeholders };
}

/**
 * Binds each directory between the writable mount that holds `p` and `p` onto itself: a mount
 * point cannot be renamed, so a command cannot move the directory holding the store aside and
 * put its own in its place.
 */
function pinsFor(
  p: string,
  binds: readonly Bind[],
  writeAll: boolean,
  already: readonly Mount[],
): Mount[] {
  const root =
    binds.filter((b) => b.rw && isInside(b.dest, p)).at(-1)?.dest ?? (writeAll ? '/' : undefined);
  if (root === undefined) return [];
  const out: Mount[] = [];
  for (let dir = path.dirname(p); dir !== root && isInside(root, dir); dir = path.dirname(dir)) {
    if (!already.some((m) => m.dest === dir) && !out.some((m) => m.dest === dir))
      out.unshift({ op: 'bind', src: dir, dest: dir, why: 'pin' });
  }
  return out;
}

function depth(p: string): number {
  return p === '/' ? 0 : p.split('/').length - 1;
}
