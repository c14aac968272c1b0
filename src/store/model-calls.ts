import {
  ArborError,
  formatIssues,
  fromStoredEvent,
  RUN_EVENT_FIELDS,
  type ToolDef,
} from '../protocol/index.js';
import type { ModelCallRecord } from '../protocol/run-file.js';
import type { EventRecord, RunStore } from './store-port.js';

/** One model call of a node as `listModelCalls` gives it: the record, its tools set resolved. */
export type ModelCallView = ModelCallRecord & {
  /** The tools the call offered; undefined when not recorded (an older child, a set cut short). */
  tools: ToolDef[] | undefined;
};

/** A run's model calls by node id, and the tools sets and system prompts they sent by digest. */
export interface RunModelCalls {
  calls: Map<string, ModelCallRecord[]>;
  tools: Map<string, ToolDef[]>;
  systems: Map<string, string>;
}

/**
 * The model calls of a node of a run, in order, each with the tools, sampling and model it asked
 * for: what `arbor replay` compares a node's request with at each step. `call` counts the node's
 * calls from 1; `step` is the step within its turn.
 */
export function listModelCalls(
  store: Pick<RunStore, 'listEvents'>,
  runId: string,
  nodeId: string,
): ModelCallView[] {
  const { calls, tools } = modelCallsOf(
    store.listEvents(runId).filter((record) => record.nodeId === nodeId),
  );
  return (calls.get(nodeId) ?? []).map((call) => ({
    ...call,
    tools: call.tools_digest === undefined ? undefined : tools.get(call.tools_digest),
  }));
}

/**
 * The model calls the events record (`model.call`, `model.tools` for the sets offered and
 * `model.system` for the prompts sent), by
 * node. A stored event of one of these types that does not hold its fields is an error naming it.
 */
export function modelCallsOf(records: readonly EventRecord[]): RunModelCalls {
  const calls = new Map<string, ModelCallRecord[]>();
  const tools = new Map<string, ToolDef[]>();
  const systems = new Map<string, string>();
  for (const record of records) {
    if (record.nodeId === undefined) continue;
    if (record.kind === 'model.system') {
      const fields = readFields(record, 'model.system');
      systems.set(fields.digest, fields.text);
    } else if (record.kind === 'model.tools') {
      const fields = readFields(record, 'model.tools');
      // A set cut to the event bound is not kept: its calls say their tools were not recorded.
      if (typeof fields.tools !== 'string') tools.set(fields.digest, fields.tools);
    } else if (record.kind === 'model.call') {
      const fields = readFields(record, 'model.call');
      const node = calls.get(record.nodeId) ?? [];
      calls.set(record.nodeId, node);
      const asked =
        fields.modelAsked ??
        fields.requestModel ??
        (fields.toolsDigest === undefined ? undefined : fields.model);
      node.push({
        call: node.length + 1,
        step: fields.step,
        endpoint: fields.endpoint,
        model: fields.model,
        ...(asked === undefined ? {} : { model_asked: asked }),
        ...(fields.requestModel === undefined ? {} : { request_model: fields.requestModel }),
        ...(fields.sampling === undefined ? {} : { sampling: fields.sampling }),
        ...(fields.toolsDigest === undefined ? {} : { tools_digest: fields.toolsDigest }),
        ...(fields.systemDigest === undefined ? {} : { system_digest: fields.systemDigest }),
      });
    }
  }
  return { calls, tools, systems };
}

function readFields<K extends 'model.call' | 'model.tools' | 'model.system'>(
  record: EventRecord,
  type: K,
) {
  const read = RUN_EVENT_FIELDS[type].safeParse(fromStoredEvent(record, record.runId, undefined));
  if (!read.success)
    throw new ArborError(
      'internal',
      `Stored event ${record.seq} (\`${type}\`) of run ${record.runId} does not hold its fields: ${formatIssues(read.error.issues)}.`,
      { details: { seq: record.seq, runId: record.runId } },
    );
  return read.data as ReturnType<(typeof RUN_EVENT_FIELDS)[K]['parse']>;
}
