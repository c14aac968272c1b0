import { addUsage, ZERO_USAGE } from '../loop/index.js';
import { diffMessages, shownTranscript, type TranscriptMessage } from '../protocol/index.js';
import type { NodeRecord, RunRecord, RunStore } from '../supervisor/index.js';
import type { Divergence, NodePair, NodeSide, RunDiff, RunSide } from './run-diff-schema.js';

/** Characters of a run's result `diffRuns` keeps. */
const RESULT_CHARS = 500;

/** A run as recorded: its record and, per node, the node, its shown transcript and model calls. */
export interface RecordedRun {
  run: RunRecord;
  nodes: readonly RecordedNode[];
}

interface RecordedNode {
  node: NodeRecord;
  /** Its transcript as views show it (no reasoning; tool results in call order). */
  messages: readonly TranscriptMessage[];
  /** Model calls it made (its `model.call` events). */
  steps: number;
}

/** A run's records from a store; undefined when the store has no such run. */
export function readRecordedRun(
  store: Pick<RunStore, 'getRun' | 'listNodes' | 'listTranscript' | 'listEvents'>,
  runId: string,
): RecordedRun | undefined {
  const run = store.getRun(runId);
  if (run === undefined) return undefined;
  const calls = new Map<string, number>();
  for (const event of store.listEvents(runId))
    if (event.kind === 'model.call' && event.nodeId !== undefined)
      calls.set(event.nodeId, (calls.get(event.nodeId) ?? 0) + 1);
  return {
    run,
    nodes: store.listNodes(runId).map((node) => ({
      node,
      messages: shownTranscript(store.listTranscript(runId, node.id)),
      steps: calls.get(node.id) ?? 0,
    })),
  };
}

/**
 * Compares two recorded runs: nodes are matched by path, transcripts message by message (see
 * `diffMessages`). The first divergence is the first difference in tree order (a parent before
 * its children, siblings by number), except that a difference in a tool result or a transcript
 * that ends early is reported at the first descendant that differs, if one does: a child's answer
 * reaches its parent as a tool result, so the child is where the runs went apart.
 */
export function diffRuns(a: RecordedRun, b: RecordedRun): RunDiff {
  const left = byPath(a);
  const right = byPath(b);
  const paths = [...new Set([...left.keys(), ...right.keys()])].sort(comparePaths);
  const found = new Map<string, Divergence>();
  for (const path of paths) {
    const divergence = nodeDivergence(path, left.get(path), right.get(path));
    if (divergence !== undefined) found.set(path, divergence);
  }
  return {
    first_divergence: firstOf(paths, found, undefined) ?? null,
    nodes: paths.map((path): NodePair => ({
      path,
      a: sideOf(left.get(path)),
      b: sideOf(right.get(path)),
    })),
    runs: { a: runSide(a), b: runSide(b) },
  };
}

/** The first divergence in tree order among the descendants of `under` (all paths: undefined). */
function firstOf(
  paths: readonly string[],
  found: ReadonlyMap<string, Divergence>,
  under: string | undefined,
): Divergence | undefined {
  const first = paths
    .filter((path) => under === undefined || path.startsWith(`${under}.`))
    .map((path) => found.get(path))
    .find((divergence) => divergence !== undefined);
  if (first === undefined || (first.what !== 'tool_result' && first.what !== 'ended')) return first;
  return firstOf(paths, found, first.path) ?? first;
}

function nodeDivergence(
  path: string,
  a: RecordedNode | undefined,
  b: RecordedNode | undefined,
): Divergence | undefined {
  if (a === undefined || b === undefined) {
    if (a === b) return undefined;
    const shown = (n: RecordedNode | undefined) =>
      n === undefined ? null : `${n.node.status}: ${oneLine(n.node.instruction)}`;
    return { path, step: null, what: 'node', a: shown(a), b: shown(b) };
  }
  const message = diffMessages(a.messages, b.messages);
  if (message !== undefined)
    return { path, step: message.step, what: message.what, a: message.a, b: message.b };
  const outcome = (n: RecordedNode) => `${n.node.status}: ${resultText(n.node.outcome?.result)}`;
  return outcome(a) === outcome(b)
    ? undefined
    : { path, step: null, what: 'outcome', a: outcome(a), b: outcome(b) };
}

function sideOf(recorded: RecordedNode | undefined): NodeSide | null {
  if (recorded === undefined) return null;
  return {
    node_id: recorded.node.id,
    status: recorded.node.status,
    steps: recorded.steps,
    tools: recorded.messages.flatMap((m) =>
      m.role === 'assistant' ? m.tool_calls.map((c) => c.name) : [],
    ),
    usage: recorded.node.usage,
  };
}

function runSide({ run, nodes }: RecordedRun): RunSide {
  const root = nodes.find((n) => n.node.parentId === undefined)?.node;
  const result = root?.outcome?.result;
  return {
    run_id: run.id,
    status: run.status,
    instruction: run.instruction,
    nodes: nodes.length,
    steps: nodes.reduce((sum, n) => sum + n.steps, 0),
    ...nodes.reduce((sum, n) => addUsage(sum, n.node.usage), ZERO_USAGE),
    result: result === undefined || result === null ? null : cutText(resultText(result)),
    ...(root?.outcome?.reason === undefined ? {} : { reason: root.outcome.reason }),
  };
}

function byPath(run: RecordedRun): Map<string, RecordedNode> {
  return new Map(run.nodes.map((n) => [n.node.path, n]));
}

/** Tree order: `0`, `0.1`, `0.1.1`, `0.2`, … `0.10` (numbers compared as numbers). */
/** Tree order of paths: a parent before its children, siblings by number (`0.2` before `0.10`). */
export function comparePaths(a: string, b: string): number {
  const left = a.split('.').map(Number);
  const right = b.split('.').map(Number);
  for (let i = 0; i < Math.min(left.length, right.length); i += 1) {
    const d = (left[i] ?? 0) - (right[i] ?? 0);
    if (d !== 0) return d;
  }
  return left.length - right.length;
}

function resultText(result: unknown): string {
  if (result === undefined || result === null) return '(no result)';
  return typeof result === 'string' ? result : JSON.stringify(result);
}

function cutText(text: string): string {
  return text.length > RESULT_CHARS ? `${text.slice(0, RESULT_CHARS - 1)}…` : text;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 120 ? `${flat.slice(0, 119)}…` : flat;
}
