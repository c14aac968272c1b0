import { randomBytes } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';

/**
 * Writes a file atomically: the content goes to a temporary file beside it, which is then renamed
 * over the target. A reader polling for the file sees nothing, or all of it — never a half-written
 * address.
 */
export async function writeFileAtomic(
  file: string,
  content: string,
  options: { signal?: AbortSignal } = {},
): Promise<void> {
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, content, { encoding: 'utf8', ...options });
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
