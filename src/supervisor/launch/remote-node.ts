import { replayTranscript, type RunEventArgs, type SpawnPayload } from '../../protocol/index.js';
import type { NodeRunnerOptions } from '../node/node-runner.js';
import type { FleetEventType, FleetPort, RemoteStart } from './providers.js';
import { resumeTemplate } from '../resume/resumed-run.js';
import type { RunStore } from '../../store/store-port.js';
import type { Timing } from '../timing.js';
import type { TreeNode } from '../tree.js';

/**
 * What a `queue` node's runner needs besides a local node's: where each attempt is placed on the
 * fleet, and how the node is started again when its worker is lost.
 */
export function remoteNode(options: {
  fleet: FleetPort | undefined;
  store: RunStore;
  runId: string;
  node: TreeNode;
  sent: SpawnPayload;
  timing: Timing;
  record: (...event: RunEventArgs<FleetEventType>) => void;
}): { remote(attempt: number): RemoteStart; requeue: NodeRunnerOptions['requeue'] } {
  const { fleet, store, runId, node, sent, timing, record } = options;
  return {
    remote: (attempt) => ({
      fleet,
      node: { runId, nodeId: node.id, path: node.path },
      attempt,
      timing,
      record,
    }),
    requeue:
      fleet === undefined
        ? undefined
        : { attempts: fleet.attempts, payload: () => recordedPayload(store, runId, node, sent) },
  };
}

/**
 * The payload of a node started again from its records — queued again after its worker was lost,
 * or woken from parking: the transcript it recorded, so its next child goes on from the last step
 * the supervisor heard of (the step in flight runs again), and its step limit less the steps it
 * made.
 */
export function recordedPayload(
  store: RunStore,
  runId: string,
  node: TreeNode,
  sent: SpawnPayload,
): SpawnPayload {
  store.flush();
  return resumeTemplate(sent, node, replayTranscript(store.listTranscript(runId, node.id)));
}
