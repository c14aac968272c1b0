import { usageError } from './usage-error.js';
import type { CliIo } from './output.js';

/** What a run writes on stderr as it goes. */
export type EventsMode = 'tree' | 'ndjson' | 'none';

/** `--events tree|ndjson|none`; by default the live tree on a terminal, NDJSON otherwise. */
export function eventsMode(flag: string | undefined, io: CliIo): EventsMode {
  if (flag === undefined) return io.isStderrTty ? 'tree' : 'ndjson';
  if (flag === 'tree' || flag === 'ndjson' || flag === 'none') return flag;
  throw usageError(
    `Expected \`--events\` to be \`tree\`, \`ndjson\` or \`none\`, got \`${flag}\`.`,
  );
}
