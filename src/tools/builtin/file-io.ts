import type { FileHandle } from 'node:fs/promises';

/**
 * Replaces the whole content of an opened file with `content` (UTF-8). Written at explicit
 * positions: a handle that was read first (`fs.edit`) has its position at the end, where
 * `FileHandle.writeFile` would append after a hole.
 */
export async function replaceContent(handle: FileHandle, content: string): Promise<void> {
  const bytes = Buffer.from(content, 'utf8');
  await handle.truncate(0);
  let written = 0;
  while (written < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, written, bytes.length - written, written);
    written += bytesWritten;
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
      return 'is part of a symlink loop';
    case 'ENXIO':
      return 'is not a regular file';
    case 'ENOSPC':
      return 'cannot be written: the disk is full';
    case 'EROFS':
      return 'is on a read-only filesystem';
    default:
      throw error;
  }
}
