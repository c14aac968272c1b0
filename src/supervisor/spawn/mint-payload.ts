import { narrowNetCredentials } from '../../authority/index.js';
import { SpawnPayloadSchema, type SpawnPayload } from '../../protocol/index.js';
import { nodeTraceparent } from '../../protocol/trace-ids.js';
import type { RootTemplate } from '../supervisor-options.js';
import type { TreeNode } from '../tree.js';

/**
 * A node's payload: its template, stamped with its depth and where it sits in the run. Every node
 * is minted here, so this is where its `http.fetch` credentials are cut to the hosts its own
 * `net` allows: a child narrowed away from a host never holds that host's credential.
 */
export function mintPayload(runId: string, node: TreeNode, template: RootTemplate): SpawnPayload {
  const payload = SpawnPayloadSchema.parse({
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
  if (payload.net_credentials === undefined) return payload;
  const { net_credentials: held, ...rest } = payload;
  const kept = narrowNetCredentials(payload.caveats.net, held);
  return kept.length === 0 ? rest : { ...rest, net_credentials: kept };
}
