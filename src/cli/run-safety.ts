import type { RunSafety } from '../runtime/index.js';
import { write, type CliIo } from './output.js';

export { prepareRunSafety, type RunSafety } from '../runtime/index.js';

/** Says on stderr what the user must know of the run's safety (the runtime records it). */
export async function announceSafety(safety: RunSafety, io: CliIo): Promise<void> {
  if (safety.notices.length > 0) await write(io.stderr, `${safety.notices.join('\n')}\n`);
}
