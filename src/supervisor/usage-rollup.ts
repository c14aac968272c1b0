import { addUsage } from '../loop/index.js';
import type { Usage } from '../protocol/index.js';
import type { Tree } from './tree.js';

/** The usage of a node and all its descendants. */
export function subtreeUsage(tree: Tree, nodeId: string): Usage {
  return tree
    .deepestFirst(nodeId)
    .reduce<Usage>((sum, node) => addUsage(sum, node.usage), { input_tokens: 0, output_tokens: 0 });
}
