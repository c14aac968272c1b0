import { describe, expect, it } from 'vitest';
import { renderNode } from '../../src/cli/live-tree.js';
import { Tree } from '../../src/supervisor/index.js';

describe('the live tree', () => {
  it('shows a node whose call waits for a provider’s rate limit, and for how long', () => {
    const tree = new Tree();
    const root = tree.mintRoot('Fan out', 0);
    const child = tree.mintChild(root.id, 'Work', 0);
    child.status = 'running';
    child.rateWait = { endpoint: 0, limit: 'input_tokens', since: 1_000 };
    expect(renderNode(child, 3_500)).toBe(
      '  ● 0.1 running (rate wait 2.5s: endpoint 0 input tokens) · step 0 · 0 tok · 3.5s · Work',
    );
    delete child.rateWait;
    expect(renderNode(child, 3_500)).toBe('  ● 0.1 running · step 0 · 0 tok · 3.5s · Work');
  });
});
