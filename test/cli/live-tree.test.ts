import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LiveTree, renderNode } from '../../src/cli/live-tree.js';
import { Tree } from '../../src/supervisor/index.js';

describe('LiveTree', () => {
  it('draws one line per node with status, step, tokens and elapsed time, indented by depth', () => {
    const tree = new Tree();
    const root = tree.mintRoot('Summarise the repository and file issues', 0);
    const child = tree.mintChild(root.id, 'Read the README', 500);
    root.status = 'running';
    root.steps = 3;
    root.usage = { input_tokens: 1200, output_tokens: 300, cost_usd: 0.0042 };
    child.status = 'completed';
    child.steps = 1;
    child.usage = { input_tokens: 90, output_tokens: 10 };
    child.endedAt = 2_500;
    expect(renderNode(root, 4_000)).toBe(
      '● 0 running · step 3 · 1.5k tok $0.0042 · 4.0s · Summarise the repository and file issues',
    );
    expect(renderNode(child, 4_000)).toBe(
      '  ✓ 0.1 completed · step 1 · 100 tok · 2.0s · Read the README',
    );

    let out = '';
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        out += chunk.toString();
        done();
      },
    });
    const live = new LiveTree(sink, tree, () => 4_000);
    live.draw();
    live.draw();
    // The second frame moves the cursor back over the first and redraws it in place.
    expect(out.split('\u001b[2F')).toHaveLength(2);
    expect(out).toContain('✓ 0.1 completed');
  });
});
