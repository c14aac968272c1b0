import { SpawnPayloadSchema, type SpawnPayload } from '../../protocol/index.js';
import { nodeTraceparent } from '../../protocol/trace-ids.js';
import type { RootTemplate } from '../supervisor-options.js';
import type { TreeNode } from '../tree.js';

/** A node's payload: its template, stamped with its depth and where it sits in the run. */
export function mintPayload(runId: string, node: TreeNode, template: RootTemplate): SpawnPayload {
  return SpawnPayloadSchema.parse({
    ...template,
    depth: node.depth,
    telemetry: {
      ...template.telemetry,
      run_id: runId,
      node_id: node.id,
      node_path: node.path,
      // Traced runs: the node's own span, which the supervisor's tracer makes with this id.
      ...(template.telemetry?.traceparent === undefined
        ? {}
        : { traceparent: nodeTraceparent(template.telemetry.traceparent, runId, node.id) }),
    },
  });
}
