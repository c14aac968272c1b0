import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { answerLines, LiveTree, renderNode } from '../../src/cli/live-tree.js';
import { subtreeUsage, Tree } from '../../src/supervisor/index.js';

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
    child.trajectory = { exposed: true, sensitive: true, risk: 0.42 };
    expect(renderNode(child, 4_000)).toBe(
      '  ✓ 0.1 completed · step 1 · 100 tok · risk 0.42 exposed+sensitive · 2.0s · Read the README',
    );
    delete child.trajectory;
    root.waitingSpawns = 2;
    expect(renderNode(root, 4_000)).toBe(
      '● 0 running (waiting to spawn 2) · step 3 · 1.5k tok $0.0042 · 4.0s · Summarise the repository and file issues',
    );
    delete root.waitingSpawns;

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
    // Two nodes and the total line; the second frame moves back over the first and redraws it.
    expect(out.split('\u001b[3F')).toHaveLength(2);
    expect(out).toContain('✓ 0.1 completed');
    // A node with children shows its subtree's spend as well as its own.
    expect(out).toContain('1.5k tok $0.0042 (subtree 1.6k tok $0.0042)');
    expect(out).toContain('total · 2 nodes · 1.6k tok $0.0042');
  });

  it('shows a parent its subtree: its own usage plus every descendant', () => {
    const tree = new Tree();
    const root = tree.mintRoot('plan', 0);
    const a = tree.mintChild(root.id, 'a', 0);
    const b = tree.mintChild(a.id, 'b', 0);
    root.usage = { input_tokens: 10, output_tokens: 0 };
    a.usage = { input_tokens: 20, output_tokens: 5, cost_usd: 0.5 };
    b.usage = { input_tokens: 1000, output_tokens: 0, cost_usd: 0.25 };
    expect(subtreeUsage(tree, a.id)).toEqual({
      input_tokens: 1020,
      output_tokens: 5,
      cost_usd: 0.75,
    });
    expect(renderNode(a, 0, subtreeUsage(tree, a.id))).toContain(
      '25 tok $0.5000 (subtree 1.0k tok $0.7500)',
    );
  });

  it('draws a streaming answer below the tree, wrapped, and drops it from the last frame', () => {
    const tree = new Tree();
    tree.mintRoot('Answer', 0);
    const stream = new PassThrough();
    const chunks: string[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
    let now = 1_000;
    const live = new LiveTree(stream, tree, () => now);
    live.start(60_000);
    now += 100;
    live.setAnswer('first line\nsecond');
    live.stop();
    const [withAnswer, last] = chunks;
    expect(withAnswer).toBe(
      '\u001b[2K· 0 pending · step 0 · 0 tok · 1.1s · Answer\n\u001b[2Ktotal · 1 node · 0 tok\n\u001b[2K\n\u001b[2Kfirst line\n\u001b[2Ksecond\n',
    );
    // The last frame goes back over all five lines, clears them, and draws the tree alone.
    expect(last?.startsWith('\u001b[5F\u001b[J')).toBe(true);
    expect(last).not.toContain('second');
    expect(answerLines('x'.repeat(25), 10)).toEqual(['xxxxxxxxxx', 'xxxxxxxxxx', 'xxxxx']);
    expect(answerLines(Array.from({ length: 30 }, (_, i) => `l${i}`).join('\n'), 80)).toHaveLength(
      12,
    );
  });
});
