import { lstat, mkdir, open, readlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { ArborError } from '../../protocol/index.js';
import { OPEN_FLAGS, fdPath } from './fd-path.js';

/** Symlinks one walk follows before giving up, as the kernel does (`ELOOP`). */
export const MAX_LINKS = 40;

/** Steps one walk takes again because an entry changed under it (swapped, removed, re-made). */
const MAX_RETRIES = 40;

/** Why a walk stopped short of its last component. */
export type WalkFailure =
  | { kind: 'missing' }
  | { kind: 'not-dir' }
  | { kind: 'loop' }
  | { kind: 'unstable' }
  | { kind: 'refused'; message: string }
  | { kind: 'error'; error: unknown };

/** Says why a real path may not be touched, or `undefined` when it may. */
export interface RealPathFence {
  refusal(real: string): string | undefined;
}

interface Frame {
  /** The entry's name in the directory below it in the stack; `''` for `/`. */
  name: string;
  handle: FileHandle;
}

/**
 * A path resolved one component at a time through directory handles, from `/` down, never by
 * name from the top: each directory is opened inside the one held before it with `O_NOFOLLOW`
 * (`fd-path.ts`), so the names walked are exactly the entries that were opened, and a symlink or
 * directory swapped in anywhere along the way is either seen as what it is now or not reached at
 * all. There is no moment at which a checked name is looked up again.
 *
 * A symlink met on the way is read (not followed) and its target walked in its place: an absolute
 * target from `/`, a relative one from the directory holding the link; `..` goes back to the
 * directory held before. The real path of what is held is therefore always known, and the caller
 * checks it before opening anything but a directory. The last component is left to the caller
 * (`advance` stops before it), which opens it with the flags its use needs.
 */
export class SafeWalk {
  /** The directories held, `/` first: the real path of the last one is their names joined. */
  readonly #frames: Frame[];
  /** Components still to walk, nearest first. */
  #pending: string[];
  #links = 0;
  #retries = 0;
  /** Directories this walk created, so one removed again and again counts as instability. */
  readonly #created = new Set<string>();

  private constructor(root: FileHandle, pending: string[]) {
    this.#frames = [{ name: '', handle: root }];
    this.#pending = pending;
  }

  /**
   * Starts a walk to the absolute path `abs` at `/`. The root is opened by name: `/` cannot be a
   * symlink, and everything below it is reached through handles.
   */
  static async start(abs: string): Promise<SafeWalk> {
    if (!path.isAbsolute(abs)) {
      throw new ArborError('internal', `Expected an absolute path to walk, got \`${abs}\`.`);
    }
    return new SafeWalk(await open('/', OPEN_FLAGS.dir), components(abs));
  }

  /** The real path of the directory held last. */
  get real(): string {
    return `/${this.#frames
      .slice(1)
      .map((frame) => frame.name)
      .join('/')}`;
  }

  /** The directory held last. */
  get dir(): FileHandle {
    const top = this.#frames.at(-1);
    if (top === undefined)
      throw new ArborError('internal', 'Expected an open walk, got a closed one.');
    return top.handle;
  }

  /** After `advance`: the last component, or `undefined` when the target is `dir` itself. */
  get last(): string | undefined {
    return this.#pending[0];
  }

  /** The real path `last` names, if it is not itself a symlink (what the caller's open checks). */
  get lastReal(): string {
    return path.posix.join(this.real, this.#pending[0] ?? '.');
  }

  /**
   * Walks every component but the last, following symlinks as described above. With `create`, a
   * missing directory is made (through its parent's handle, then opened like any other) once the
   * fence has passed the real path the whole walk would end at.
   */
  async advance(
    options: { create?: RealPathFence; signal?: AbortSignal } = {},
  ): Promise<WalkFailure | undefined> {
    for (;;) {
      options.signal?.throwIfAborted();
      const name = this.#pending[0];
      if (name === undefined) return undefined;
      if (name === '.' || name === '..') {
        this.#pending.shift();
        if (name === '..') await this.#up();
        continue;
      }
      if (this.#pending.length === 1) return undefined;
      const step = await this.#enter(name);
      if (step === undefined) continue;
      if (step.kind !== 'missing' || options.create === undefined) return step;
      const made = await this.#makeDir(name, options.create);
      if (made !== undefined) return made;
    }
  }

  /**
   * Reads the first pending component as a symlink and walks its target in its place. Says
   * `not-link` when the entry is not a symlink (any more).
   */
  async followLast(): Promise<'followed' | 'not-link' | WalkFailure> {
    const name = this.#pending[0];
    if (name === undefined) return 'not-link';
    let target: string;
    try {
      target = await readlink(fdPath(this.dir, name));
    } catch (error) {
      const code = errnoOf(error);
      if (code === 'EINVAL') return 'not-link';
      if (code === 'ENOENT') return { kind: 'missing' };
      return { kind: 'error', error };
    }
    this.#links += 1;
    if (this.#links > MAX_LINKS) return { kind: 'loop' };
    if (target === '') return { kind: 'missing' };
    this.#pending.shift();
    if (path.isAbsolute(target)) await this.#toRoot();
    this.#pending = [...components(target), ...this.#pending];
    return 'followed';
  }

  /** Counts a step taken again because an entry changed; fails once that happens too often. */
  retry(): WalkFailure | undefined {
    this.#retries += 1;
    return this.#retries > MAX_RETRIES ? { kind: 'unstable' } : undefined;
  }

  /** Closes every handle the walk holds. */
  async close(): Promise<void> {
    // All at once: nothing depends on the order, and each close is a trip to the thread pool.
    const closed = await Promise.allSettled(
      this.#frames.splice(0).map((frame) => frame.handle.close()),
    );
    const failed = closed.find((result) => result.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  }

  /** Opens `name` as the next directory; `undefined` once it is held or a link was followed. */
  async #enter(name: string): Promise<WalkFailure | undefined> {
    let handle: FileHandle;
    try {
      handle = await open(fdPath(this.dir, name), OPEN_FLAGS.dir);
    } catch (error) {
      const code = errnoOf(error);
      if (code === 'ENOENT') return { kind: 'missing' };
      // O_DIRECTORY|O_NOFOLLOW on a symlink fails with ENOTDIR, as it does on a file.
      if (code !== 'ENOTDIR' && code !== 'ELOOP') return { kind: 'error', error };
      const followed = await this.followLast();
      if (followed === 'followed') return undefined;
      return followed === 'not-link' ? this.notDirectory() : followed;
    }
    this.#pending.shift();
    this.#frames.push({ name, handle });
    return undefined;
  }

  /**
   * After an open found the first pending component not to be a directory and `followLast` found
   * no symlink there: a directory or a symlink there now means a swap raced the two calls, and
   * the step is taken again (`undefined`); anything else really is not a directory.
   */
  async notDirectory(): Promise<WalkFailure | undefined> {
    const name = this.#pending[0];
    if (name === undefined) return { kind: 'not-dir' };
    let swapped: boolean;
    try {
      const stats = await lstat(fdPath(this.dir, name));
      swapped = stats.isDirectory() || stats.isSymbolicLink();
    } catch {
      // Gone since: the next attempt says what is there now.
      swapped = true;
    }
    return swapped ? this.retry() : { kind: 'not-dir' };
  }

  async #makeDir(name: string, fence: RealPathFence): Promise<WalkFailure | undefined> {
    const rest = this.#pending.slice(1);
    // `missing/..` does not exist for the kernel either; only plain names are created.
    if (rest.some((part) => part === '.' || part === '..')) return { kind: 'missing' };
    const dir = path.posix.join(this.real, name);
    const refusal = fence.refusal(path.posix.join(dir, ...rest));
    if (refusal !== undefined) return { kind: 'refused', message: refusal };
    if (this.#created.has(dir)) {
      const again = this.retry();
      if (again !== undefined) return again;
    }
    try {
      await mkdir(fdPath(this.dir, name), 0o777);
      this.#created.add(dir);
    } catch (error) {
      // Made by someone else meanwhile: opened (and judged) like any other entry.
      if (errnoOf(error) !== 'EEXIST') return { kind: 'error', error };
      return this.retry();
    }
    return undefined;
  }

  async #up(): Promise<void> {
    // `..` of `/` is `/`, as for the kernel.
    if (this.#frames.length > 1) await this.#frames.pop()?.handle.close();
  }

  async #toRoot(): Promise<void> {
    while (this.#frames.length > 1) await this.#up();
  }
}

/** The components of a path; `.` and `..` are kept, for the walk to resolve in order. */
function components(p: string): string[] {
  return p.split('/').filter((part) => part !== '');
}

export function errnoOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}
