import { replayTranscript, type SpawnPayload } from '../protocol/index.js';
import { resumeTemplate } from './resumed-run.js';
import type { RunStore } from './store-port.js';
import type { TreeNode } from './tree.js';

/**
 * The payload of a node queued again after its worker was lost: the transcript it recorded, so
 * the next worker's child goes on from the last step the supervisor heard of (the step in flight
 * runs again: at-least-once), and its step limit less the steps it made.
 */
export function requeuePayload(
  store: RunStore,
  runId: string,
  node: TreeNode,
  sent: SpawnPayload,
): SpawnPayload {
  store.flush();
  return resumeTemplate(sent, node, replayTranscript(store.listTranscript(runId, node.id)));
}
