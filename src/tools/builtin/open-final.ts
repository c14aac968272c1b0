import { open, readlink, type FileHandle } from 'node:fs/promises';
import { describeFsError } from './file-io.js';
import { OPEN_FLAGS, fdPath } from './fd-path.js';
import { errnoOf, type RealPathFence, type SafeWalk, type WalkFailure } from './safe-walk.js';

/**
 * What a file tool opens its path for: a text file to read, a file to edit in place (read and
 * written through one descriptor), a file to create or replace, a directory to list or search.
 */
export type OpenWant = 'read' | 'edit' | 'write' | 'dir';

export type FinalOpen =
  | {
      ok: true;
      handle: FileHandle;
      /** The real path of what was opened. */
      real: string;
      /** Bytes in the file when it was opened (0 for a directory). */
      size: number;
      /** Whether `write` created the file (it did not exist). */
      created: boolean;
    }
  /** The path leads somewhere the grant does not reach: arbor's refusal. */
  | { ok: false; refusal: string }
  /** The filesystem said no (missing, a directory, not a regular file…). */
  | { ok: false; why: string };

type Step = FinalOpen | 'again';

/**
 * Walks to the last component of `walk`'s path and opens it for `want`, checking its real path
 * with `fence` before anything but a directory is opened. A symlink as the last component is
 * followed by walking its target (so a link that stays inside keeps working); what the link leads
 * to is judged again. The opened descriptor is checked once more through the kernel's own name
 * for it, so a directory renamed under the walk cannot carry it out of the fence unseen.
 */
export async function openFinal(
  walk: SafeWalk,
  want: OpenWant,
  fence: RealPathFence,
  { signal }: { signal?: AbortSignal } = {},
): Promise<FinalOpen> {
  for (;;) {
    const failure = await walk.advance({
      ...(want === 'write' ? { create: fence } : {}),
      ...(signal === undefined ? {} : { signal }),
    });
    if (failure !== undefined) return fromFailure(failure);
    const name = walk.last;
    const real = name === undefined ? walk.real : walk.lastReal;
    const refusal = fence.refusal(real);
    if (refusal !== undefined) {
      // Refused as named, but a symlink there may lead back inside: only the link is read.
      const followed = name === undefined ? 'not-link' : await walk.followLast();
      if (followed === 'followed') continue;
      if (followed === 'not-link' || followed.kind === 'missing') return { ok: false, refusal };
      return fromFailure(followed);
    }
    const step =
      name === undefined ? await openHeld(walk, want) : await openEntry(walk, name, want, real);
    if (step === 'again') continue;
    return step.ok ? confirm(step, fence) : step;
  }
}

/** The walk ended on a directory it holds (a path ending in `..`, a link to a directory). */
async function openHeld(walk: SafeWalk, want: OpenWant): Promise<Step> {
  if (want !== 'dir') return { ok: false, why: isDirectoryWhy(want) };
  // A second descriptor of the same directory, through the one held: no name is looked up.
  const handle = await open(fdPath(walk.dir), OPEN_FLAGS.dir);
  return { ok: true, handle, real: walk.real, size: 0, created: false };
}

async function openEntry(
  walk: SafeWalk,
  name: string,
  want: OpenWant,
  real: string,
): Promise<Step> {
  const at = fdPath(walk.dir, name);
  if (want === 'write') return openForWrite(walk, at, real);
  let handle: FileHandle;
  try {
    handle = await open(at, OPEN_FLAGS[want]);
  } catch (error) {
    const code = errnoOf(error);
    if (code === 'ELOOP') return followOrRetry(walk);
    if (want === 'dir' && code === 'ENOTDIR') {
      const followed = await walk.followLast();
      if (followed === 'followed') return 'again';
      const failure = followed === 'not-link' ? await walk.notDirectory() : followed;
      if (failure === undefined) return 'again';
      if (failure.kind === 'not-dir')
        return { ok: false, why: 'is not a directory (use `fs.read`)' };
      return fromFailure(failure);
    }
    if (code === 'EISDIR') return { ok: false, why: isDirectoryWhy(want) };
    return { ok: false, why: describeFsError(error) };
  }
  if (want === 'dir') return { ok: true, handle, real, size: 0, created: false };
  return regularFile(handle, real, isDirectoryWhy(want));
}

/** Creates the file when missing (`O_EXCL`: never through a link), else opens what is there. */
async function openForWrite(walk: SafeWalk, at: string, real: string): Promise<Step> {
  try {
    const handle = await open(at, OPEN_FLAGS.create, 0o666);
    return { ok: true, handle, real, size: 0, created: true };
  } catch (error) {
    if (errnoOf(error) !== 'EEXIST') return { ok: false, why: describeFsError(error) };
  }
  let handle: FileHandle;
  try {
    handle = await open(at, OPEN_FLAGS.write);
  } catch (error) {
    const code = errnoOf(error);
    if (code === 'ELOOP') return followOrRetry(walk);
    if (code === 'ENOENT') {
      // Removed between the two opens: create it again.
      const unstable = walk.retry();
      return unstable === undefined ? 'again' : fromFailure(unstable);
    }
    // ENXIO: a FIFO nobody reads; O_NONBLOCK made the open fail instead of hang.
    if (code === 'ENXIO') return { ok: false, why: 'is not a regular file' };
    return { ok: false, why: describeFsError(error) };
  }
  return regularFile(handle, real, 'is a directory');
}

/** An open found a symlink as the last component: walk its target, or again if it went away. */
async function followOrRetry(walk: SafeWalk): Promise<Step> {
  const followed = await walk.followLast();
  if (followed === 'followed') return 'again';
  const unstable = followed === 'not-link' ? walk.retry() : followed;
  return unstable === undefined ? 'again' : fromFailure(unstable);
}

async function regularFile(handle: FileHandle, real: string, directoryWhy: string): Promise<Step> {
  const stats = await handle.stat();
  if (stats.isFile()) return { ok: true, handle, real, size: stats.size, created: false };
  await handle.close();
  return { ok: false, why: stats.isDirectory() ? directoryWhy : 'is not a regular file' };
}

/**
 * The kernel's name for the opened descriptor must pass the fence too. It differs from the walked
 * path only when a directory on the way was renamed after the walk passed it; such a rename needs
 * write access to both places, but the fence, not the renamer, decides what this call may touch.
 */
async function confirm(
  opened: Extract<FinalOpen, { ok: true }>,
  fence: RealPathFence,
): Promise<FinalOpen> {
  const now = await readlink(fdPath(opened.handle));
  if (now === opened.real) return opened;
  const refusal = fence.refusal(now);
  if (refusal === undefined) return { ...opened, real: now };
  await opened.handle.close();
  return { ok: false, refusal };
}

function fromFailure(failure: WalkFailure): FinalOpen {
  switch (failure.kind) {
    case 'missing':
      return { ok: false, why: 'does not exist' };
    case 'not-dir':
      return { ok: false, why: 'has a parent that is not a directory' };
    case 'loop':
      return { ok: false, refusal: 'is part of a symlink loop' };
    case 'unstable':
      return {
        ok: false,
        why: 'kept changing while it was being opened (entries on its path were swapped); try again',
      };
    case 'refused':
      return { ok: false, refusal: failure.message };
    case 'error':
      return { ok: false, why: describeFsError(failure.error) };
  }
}

function isDirectoryWhy(want: OpenWant): string {
  return want === 'write' ? 'is a directory' : 'is a directory (use `fs.list`)';
}
