import { redactPayload, type SpawnPayload } from '../protocol/index.js';
import type { NodeRecord, NodeStatus } from './store-port.js';
import type { TreeNode } from './tree.js';

/** A new node's record: its payload redacted, no usage yet. */
export function nodeRecord(
  runId: string,
  node: TreeNode,
  payload: SpawnPayload,
  provider: string,
  status: NodeStatus,
): NodeRecord {
  return {
    runId,
    id: node.id,
    ...(node.parentId === undefined ? {} : { parentId: node.parentId }),
    path: node.path,
    depth: node.depth,
    provider,
    instruction: node.instruction,
    status,
    payload: redactPayload(payload),
    attempts: 1,
    createdAt: node.createdAt,
    usage: { input_tokens: 0, output_tokens: 0 },
  };
}
