import { readFile } from 'node:fs/promises';
import { ArborError, formatIssues } from '../../protocol/index.js';
import { PlaybookSchema, type Playbook } from './playbook.js';

/**
 * Validates a playbook value. Throws a `config` error naming the source and every bad field:
 * "Playbook `demo.json`: `scripts[0].steps[1].fault`: expected either `status` …".
 */
export function parsePlaybook(value: unknown, source = 'playbook'): Playbook {
  const parsed = PlaybookSchema.safeParse(value, { reportInput: true });
  if (parsed.success) return parsed.data;
  throw new ArborError('config', `Playbook \`${source}\`: ${formatIssues(parsed.error.issues)}`, {
    details: { source },
  });
}

/** Reads, decodes and validates a playbook file. */
export async function loadPlaybook(
  file: string,
  options: { signal?: AbortSignal } = {},
): Promise<Playbook> {
  let text: string;
  try {
    text = await readFile(file, { encoding: 'utf8', ...options });
  } catch (error) {
    if (options.signal?.aborted === true) {
      throw new ArborError('cancelled', 'Loading the playbook was cancelled.', { cause: error });
    }
    const code = (error as { code?: unknown }).code;
    const why = code === 'ENOENT' ? 'no such file' : String(code ?? error);
    throw new ArborError('config', `Cannot read playbook \`${file}\`: ${why}.`, { cause: error });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new ArborError('config', `Playbook \`${file}\` is not valid JSON: ${message}`, {
      cause: error,
    });
  }
  return parsePlaybook(value, file);
}
