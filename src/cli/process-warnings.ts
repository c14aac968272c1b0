/**
 * Node prints process warnings (`MaxListenersExceededWarning`, `ExperimentalWarning`…) as free
 * text on stderr, where `--events ndjson` writes one JSON object per line: a reader of that stream
 * would meet a line that is not JSON. The CLI takes the warnings from Node's printer as it starts
 * (`holdProcessWarnings`); each command then says where they go (`routeProcessWarnings`).
 */
import type { EventsMode } from './events-mode.js';
import { write, type CliIo } from './output.js';

type WarningSink = (warning: Error) => void;

const held: Error[] = [];
let sink: WarningSink | undefined;
let isHolding = false;

function onWarning(warning: Error): void {
  if (sink === undefined) held.push(warning);
  else sink(warning);
}

/** Takes warnings from Node's printer; they wait until a command routes them. */
export function holdProcessWarnings(): void {
  if (isHolding) return;
  isHolding = true;
  for (const listener of process.listeners('warning')) process.off('warning', listener);
  process.on('warning', onWarning);
}

/**
 * Sends the warnings held so far, and every later one, to `to` until the returned function is
 * called; warnings after that are held again.
 */
export function routeProcessWarnings(to: WarningSink): () => void {
  holdProcessWarnings();
  sink = to;
  for (const warning of held.splice(0)) to(warning);
  return () => {
    if (sink === to) sink = undefined;
  };
}

/** A warning as Node itself prints it. */
export function warningText(warning: Error): string {
  return `(node:${process.pid}) ${warning.name}: ${warning.message}\n`;
}

/** A warning as an event line of `--events ndjson`, stamped like the run's other events. */
function warningLine(runId: string, warning: Error): string {
  const line = {
    ts: new Date().toISOString(),
    run_id: runId,
    event: 'process.warning',
    name: warning.name,
    message: warning.message,
  };
  return `${JSON.stringify(line)}\n`;
}

/** A run's warnings go where its events go: as event lines when those are NDJSON. */
export function routeWarnings(events: EventsMode, runId: string, io: CliIo): () => void {
  return routeProcessWarnings((warning) => {
    void write(io.stderr, events === 'ndjson' ? warningLine(runId, warning) : warningText(warning));
  });
}
