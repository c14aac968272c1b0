import { oneLine, tokens } from './format.js';
import type { NodeView } from './types.js';

/** The tree, one row per node in tree order, indented by depth; a click opens the node. */
export function Tree(props: {
  nodes: NodeView[];
  selected: string | undefined;
  onSelect: (nodeId: string) => void;
}) {
  return (
    <section class="tree" aria-label="tree">
      <h2>Tree</h2>
      <ul>
        {props.nodes.map((node) => (
          <li
            key={node.node_id}
            class={`tree-node${node.node_id === props.selected ? ' selected' : ''}`}
            data-path={node.path}
            data-status={node.status}
            style={{ paddingLeft: `${node.depth * 16 + 4}px` }}
            onClick={() => {
              props.onSelect(node.node_id);
            }}
          >
            <span class={`dot ${node.status}`} title={node.status} />
            <span class="path">{node.path}</span>
            <span class="what">{oneLine(node.instruction, 80)}</span>
            <span class="tok">{tokens(node.usage)}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
