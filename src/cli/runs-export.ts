import { ARBOR_VERSION, replayTranscript, type TranscriptEntry } from '../protocol/index.js';
import { RUN_FILE_FORMAT, type RunFile, type RunFileMessage } from '../protocol/run-file.js';
import { modelCallsOf, type SqliteStore } from '../store/index.js';
import type { RunRecord } from '../store/store-port.js';
import { nodeViews, summarize, wireLine } from '../dashboard/run-views.js';

/**
 * A run of a store as a run file (`docs/run-files.md`): its summary, nodes, events, transcripts,
 * gates, and each node's model calls with the tools sets they offered. Thinking models' reasoning
 * goes in only with `withReasoning` (apart, as `opaque_reasoning`): it is kept unscrubbed, as the
 * provider signed it, so it leaves the store only when the operator asks for it.
 */
export function runFileOf(
  store: SqliteStore,
  run: RunRecord,
  options: { withReasoning?: boolean } = {},
): RunFile {
  const nodes = store.listNodes(run.id);
  const paths = new Map(nodes.map((node) => [node.id, node.path]));
  const records = store.listEvents(run.id);
  const { calls, tools } = modelCallsOf(records);
  return {
    format: RUN_FILE_FORMAT,
    arbor_version: ARBOR_VERSION,
    ...summarize(run, nodes),
    meta: run.meta,
    nodes: nodeViews(nodes),
    events: records.map((record) => wireLine(run.id, record, paths)),
    gates: store.listGates({ runId: run.id }),
    transcripts: Object.fromEntries(
      nodes.map((node) => [
        node.path,
        fileMessages(store.listTranscript(run.id, node.id), options.withReasoning === true),
      ]),
    ),
    model_calls: Object.fromEntries(nodes.map((node) => [node.path, calls.get(node.id) ?? []])),
    tools: Object.fromEntries(tools),
    authority: Object.fromEntries(
      nodes.map((node) => [
        node.path,
        { grant: node.payload.caveats, limits: node.payload.limits, warm: node.payload.warm },
      ]),
    ),
  };
}

/**
 * A transcript as shown, each assistant message's reasoning moved to `opaque_reasoning`: a
 * reader that displays `reasoning`-less messages shows no thinking, a replay finds it verbatim.
 */
function fileMessages(
  entries: readonly TranscriptEntry[],
  withReasoning: boolean,
): RunFileMessage[] {
  return replayTranscript(entries).map((message) => {
    if (message.role !== 'assistant' || message.reasoning === undefined) return message;
    const { reasoning, ...shown } = message;
    return withReasoning ? { ...shown, opaque_reasoning: reasoning } : shown;
  });
}
