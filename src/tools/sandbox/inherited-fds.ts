import type { StdioOptions } from 'node:child_process';
import { closeSync, openSync, readdirSync, readSync } from 'node:fs';

/** One entry of `spawn`'s `stdio` array: the slot for the child's descriptor of that index. */
export type StdioSlot = Exclude<StdioOptions, string>[number];

/** `O_CLOEXEC` as `/proc/self/fdinfo/N` shows it in its octal `flags:` line (Linux). */
const O_CLOEXEC = 0o2000000;
/** Holds the start of an fdinfo file: `pos:` then `flags:` come first. */
const info = Buffer.alloc(256);

/**
 * The descriptors above stderr this process holds without close-on-exec, ascending: each would
 * reach a process it spawns. Node and libuv open everything close-on-exec, so these are what the
 * process inherited (`arbor run 200<secret`) or what a native add-on of a host opened. Read from
 * `/proc/self/fd` and `/proc/self/fdinfo` (a few dozen small reads); `undefined` where there is no
 * `/proc` to read (macOS and the BSDs): there, nothing can be told and nothing is done.
 */
export function inheritableFds(): number[] | undefined {
  if (process.platform !== 'linux') return undefined;
  let names: string[];
  try {
    names = readdirSync('/proc/self/fd');
  } catch {
    return undefined;
  }
  const fds: number[] = [];
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd <= 2) continue;
    const flags = fdFlags(name);
    // Closed since the listing (the listing's own directory handle is one).
    if (flags === 'gone') continue;
    // Unreadable counts as inheritable: covering a descriptor in the child costs nothing.
    if (flags === undefined || (flags & O_CLOEXEC) === 0) fds.push(fd);
  }
  return fds.sort((a, b) => a - b);
}

/**
 * The `flags:` of `/proc/self/fdinfo/NAME`. Opened and read by hand into one buffer: `readFileSync`
 * (which also stats the file) makes the whole listing take about twice as long.
 */
function fdFlags(name: string): number | 'gone' | undefined {
  let handle: number | undefined;
  try {
    handle = openSync(`/proc/self/fdinfo/${name}`, 'r');
    const length = readSync(handle, info, 0, info.length, 0);
    const flags = /^flags:\s*([0-7]+)/m.exec(info.toString('latin1', 0, length))?.[1];
    return flags === undefined ? undefined : parseInt(flags, 8);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'gone' : undefined;
  } finally {
    if (handle !== undefined) closeSync(handle);
  }
}

/**
 * `base` extended so that each of `fds` that arbor does not fill itself gets `devNull`: libuv
 * `dup2`s a descriptor number given for slot `i` onto descriptor `i` of the child before it
 * executes, so the inherited descriptor there is replaced. Slots arbor fills (a pipe, `ipc`, a
 * number, `inherit`) keep their index and value; the new slots between are `ignore`, which for
 * indexes above 2 leaves the child's descriptor as it is (closed, or covered by close-on-exec).
 */
export function sealStdio(
  base: readonly StdioSlot[],
  fds: readonly number[],
  devNull: number,
): StdioSlot[] {
  const stdio = [...base];
  for (const fd of fds) {
    if (fd <= 2 || !isVacant(stdio[fd])) continue;
    while (stdio.length < fd) stdio.push('ignore');
    stdio[fd] = devNull;
  }
  return stdio;
}

/**
 * Calls `start` with `stdio` sealed: every descriptor this process holds without close-on-exec
 * reaches the spawned process only as `/dev/null` (read-only), whatever it was here. Nothing is
 * closed or changed in this process, so a host embedding arbor keeps its own descriptors.
 * `start` must spawn before it returns (`spawn` does: libuv forks and `dup2`s synchronously); the
 * `/dev/null` handle is closed when it has. The stdio it gets is typed as `base`, so `spawn`'s
 * overloads still see arbor's own slots; the slots added past them yield no streams.
 *
 * The listing is taken just before `start`, synchronously: a descriptor another thread opens
 * without close-on-exec in between (a host's native add-on) is not covered. One far up costs a
 * slot per number, which Node and libuv walk: a spawn past fd 20,000 took 3 ms longer here. One
 * within a few numbers of the open-file limit cannot be covered (libuv first moves the `/dev/null`
 * source above the slot count): the spawn fails (`EINVAL`, thrown, or `EMFILE`, emitted), it never
 * runs with the descriptor. Where there is no `/proc` (macOS), `stdio` is `base` unchanged.
 */
export function withSealedStdio<S extends [] | StdioSlot[], T>(base: S, start: (stdio: S) => T): T {
  const fds = inheritableFds()?.filter((fd) => isVacant(base[fd]));
  if (fds === undefined || fds.length === 0) return start(base);
  // Node opens every file with O_CLOEXEC: this handle itself never reaches a child.
  const devNull = openSync('/dev/null', 'r');
  try {
    return start(sealStdio(base, fds, devNull) as S);
  } finally {
    closeSync(devNull);
  }
}

/** A slot arbor leaves to the child's inherited descriptor: absent, or `ignore` (above 2). */
function isVacant(slot: StdioSlot): boolean {
  return slot === undefined || slot === null || slot === 'ignore';
}
