import { constants } from 'node:fs';
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

/**
 * `O_NOFOLLOW` refuses to open the checked path if a symlink was swapped in as its last component
 * after the check; `O_NONBLOCK` keeps a FIFO planted at the path from hanging the open. Neither
 * exists on Windows, where they are simply not set.
 */
const flags: Partial<typeof constants> = constants;
const NOFOLLOW = flags.O_NOFOLLOW ?? 0;
const NONBLOCK = flags.O_NONBLOCK ?? 0;

export type OpenedFile =
  { ok: true; handle: FileHandle; size: number } | { ok: false; why: string };

/** Opens an existing regular file for reading, or says why it cannot be read. */
export async function openRegularFile(real: string): Promise<OpenedFile> {
  let handle: FileHandle;
  try {
    handle = await open(real, constants.O_RDONLY | NOFOLLOW | NONBLOCK);
  } catch (error) {
    return { ok: false, why: describeFsError(error) };
  }
  const stats = await handle.stat();
  if (stats.isFile()) return { ok: true, handle, size: stats.size };
  await handle.close();
  return {
    ok: false,
    why: stats.isDirectory() ? 'is a directory (use `fs.list`)' : 'is not a regular file',
  };
}

/** Opens `real` for writing from scratch, creating it when missing. */
async function openForWrite(real: string): Promise<FileHandle> {
  return open(real, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | NOFOLLOW, 0o666);
}

/**
 * Writes `content` to the checked real path; returns why it failed, or `undefined`. Parent
 * directories are created; the file is opened without following a symlink.
 */
export async function writeWhole(real: string, content: string): Promise<string | undefined> {
  try {
    await mkdir(path.dirname(real), { recursive: true });
    const handle = await openForWrite(real);
    try {
      await handle.writeFile(content, 'utf8');
    } finally {
      await handle.close();
    }
    return undefined;
  } catch (error) {
    return describeFsError(error);
  }
}

/**
 * What went wrong with a filesystem call, in words a model can act on; errors without a known
 * errno are rethrown, because a message we cannot name is better left to the registry's handler.
 */
export function describeFsError(error: unknown): string {
  const code =
    typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
  switch (code) {
    case 'ENOENT':
      return 'does not exist';
    case 'ENOTDIR':
      return 'has a parent that is not a directory';
    case 'EISDIR':
      return 'is a directory';
    case 'EACCES':
    case 'EPERM':
      return 'is not accessible (permission denied)';
    case 'ELOOP':
      return 'became a symlink after it was checked';
    case 'ENOSPC':
      return 'cannot be written: the disk is full';
    case 'EROFS':
      return 'is on a read-only filesystem';
    default:
      throw error;
  }
}
