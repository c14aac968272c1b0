import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { canonicalPath } from '../authority/index.js';
import type { IncomingFile } from './message-input.js';

/** A file saved for a task: where it is, and what the caller said it was. */
export interface SavedFile {
  path: string;
  mediaType: string;
  bytes: number;
}

/** The longest name a saved file gets (before a suffix that keeps it unique). */
const MAX_NAME = 100;

/**
 * Where the files callers send with their tasks are kept: one directory per task, under a root
 * made on first use (mode 0700) in the system's temporary directory. Not beside the store: the
 * store's usual directory is the workspace's `.arbor/`, which no node may read, and a caller's
 * file does not belong in the shared workspace either. A task's node is granted its own
 * directory to read, and nothing else of the root. Files are named by the server: the caller's
 * name reduced to a safe base name (or one made up), never a path of its choosing, and never
 * written over (`notes-2.txt` when `notes.txt` is taken).
 */
export class TaskInbox {
  #root: string | undefined;

  /** `root`: a directory to keep the tasks' files in, instead of a fresh temporary one. */
  constructor(root?: string) {
    this.#root = root;
  }

  /** Saves a task's files in its directory; returns that directory and the files as saved. */
  save(taskId: string, files: readonly IncomingFile[]): { dir: string; saved: SavedFile[] } {
    this.#root ??= canonicalPath(mkdtempSync(path.join(tmpdir(), 'arbor-inbox-')));
    const dir = path.join(this.#root, taskId);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const saved = files.map((file, index) => ({
      path: writeNew(dir, safeName(file.filename, index), file.bytes),
      mediaType: file.mediaType,
      bytes: file.bytes.length,
    }));
    return { dir, saved };
  }
}

/** The caller's name as a base name of letters, digits, `.`, `_` and `-`; or `file-N`. */
function safeName(filename: string, index: number): string {
  const base = filename.split(/[\\/]/).pop() ?? '';
  const cleaned = base
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .replace(/^[._]+/, '')
    .slice(-MAX_NAME);
  return /[A-Za-z0-9]/.test(cleaned) ? cleaned : `file-${index + 1}`;
}

/** Writes `bytes` to a new file `name` in `dir` (`name-2`, `name-3`, … when taken); returns its path. */
function writeNew(dir: string, name: string, bytes: Buffer): string {
  const ext = path.extname(name);
  const stem = name.slice(0, name.length - ext.length);
  for (let n = 1; ; n++) {
    const candidate = path.join(dir, n === 1 ? name : `${stem}-${n}${ext}`);
    try {
      // `wx` never follows a link and never opens a file that is there.
      writeFileSync(candidate, bytes, { flag: 'wx', mode: 0o600 });
      return candidate;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}
