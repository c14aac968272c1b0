import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  outcomeOf,
  SpawnPayloadSchema,
  TERMINAL_STATUSES,
  type TerminalStatus,
} from '../protocol/index.js';
import { loadRunFile } from '../protocol/load-run-file.js';
import type { RunFile } from '../protocol/run-file.js';

export type { RunFile };
import type { RunStore } from '../store/store-port.js';

/** The intelligence an imported node's record names: it was never stored, and is never called. */
const NOT_RECORDED = { endpoints: [{ url: 'http://127.0.0.1:9/not-recorded' }], model: 'unknown' };

/** Keys of an event line that are not the event's own fields. */
const LINE_KEYS = new Set(['ts', 'run_id', 'node_id', 'path', 'event']);

/**
 * Imports a run file (`arbor runs export`) into a store, under its own run id, so a run recorded
 * on another machine can be replayed (`arbor replay FILE`) and compared (`arbor runs diff`) here:
 * its run, nodes (with the grant, limits and warmth the file records; none is unrestricted
 * nowhere: a node the file gives no grant for is recorded with the narrowest), transcripts
 * (reasoning included when the file has it) and events. The run's meta says where it came from
 * (`imported_from`). A run the store already has is left as it is. Returns the run id.
 */
export function importRunFile(store: RunStore, path: string): string {
  return importRun(store, readRunFile(path), path);
}

/** A run file read and checked (`run_file_invalid` naming what is wrong). */
export function readRunFile(path: string): RunFile {
  return loadRunFile(readFileSync(path, 'utf8'), path).file;
}

/** Imports a run file already read (see `importRunFile`). */
export function importRun(store: RunStore, file: RunFile, path: string): string {
  const runId = file.run_id;
  if (store.getRun(runId) !== undefined) return runId;
  const status = terminal(file.status) ?? 'failed';
  store.createRun({
    id: runId,
    instruction: file.instruction,
    status: 'running',
    createdAt: Date.parse(file.created_at),
    meta: { ...file.meta, imported_from: resolve(path), arbor_version: file.arbor_version },
  });
  const ids = new Map<string, string>(file.nodes.map((node) => [node.path, node.node_id]));
  for (const node of [...file.nodes].sort((a, b) => a.depth - b.depth)) {
    const held = file.authority?.[node.path];
    const nodeStatus = terminal(node.status) ?? 'failed';
    store.createNode({
      runId,
      id: node.node_id,
      ...(node.parent_id === undefined ? {} : { parentId: node.parent_id }),
      path: node.path,
      depth: node.depth,
      provider: node.provider,
      instruction: node.instruction,
      status: nodeStatus,
      payload: SpawnPayloadSchema.parse({
        instruction: node.instruction,
        intelligence: NOT_RECORDED,
        depth: node.depth,
        telemetry: { run_id: runId, node_id: node.node_id, node_path: node.path },
        caveats: held?.grant ?? NARROWEST,
        ...(held === undefined ? {} : { limits: held.limits, warm: held.warm }),
      }),
      attempts: 1,
      createdAt: Date.parse(node.started_at ?? file.created_at),
      usage: node.usage,
      subtreeUsage: node.subtree_usage,
      outcome: outcomeOf(nodeStatus, node.result ?? null, node.reason),
      ...(node.ended_at === undefined ? {} : { endedAt: Date.parse(node.ended_at) }),
    });
    for (const message of file.transcripts[node.path] ?? []) {
      const { opaque_reasoning: reasoning, ...shown } = message;
      store.appendTranscript(runId, node.node_id, Date.parse(file.created_at), {
        op: 'append',
        message: reasoning === undefined ? shown : { ...shown, reasoning },
      } as Parameters<RunStore['appendTranscript']>[3]);
    }
  }
  importEvents(store, file, ids);
  store.finishRun(runId, status, Date.parse(file.ended_at ?? file.created_at));
  return runId;
}

/** Nothing at all: the grant of a node a file records none for. */
const NARROWEST = { fs_read: [], fs_write: [], exec: [], net: [] };

function importEvents(store: RunStore, file: RunFile, ids: ReadonlyMap<string, string>): void {
  for (const line of file.events) {
    const data: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(line)) if (!LINE_KEYS.has(key)) data[key] = value;
    const nodeId = line.node_id ?? (line.path === undefined ? undefined : ids.get(line.path));
    store.appendEvent({
      runId: file.run_id,
      ...(nodeId === undefined ? {} : { nodeId }),
      ts: Date.parse(line.ts),
      kind: line.event,
      data,
    });
  }
}

function terminal(status: string): TerminalStatus | undefined {
  return (TERMINAL_STATUSES as readonly string[]).includes(status)
    ? (status as TerminalStatus)
    : undefined;
}
