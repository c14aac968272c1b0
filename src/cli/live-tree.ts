import type { Writable } from 'node:stream';
import type { Tree, TreeNode } from '../supervisor/index.js';

const MARK: Record<string, string> = {
  pending: '·',
  spawning: '◌',
  running: '●',
  paused: '‖',
  completed: '✓',
  refused: '⊘',
  cancelled: '–',
};

/**
 * The live tree on a terminal's stderr: one line per node (status, step, tokens, elapsed time,
 * instruction), redrawn in place a few times a second and once more at the end.
 */
export class LiveTree {
  readonly #out: Writable;
  readonly #tree: Tree;
  readonly #now: () => number;
  #drawn = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(out: Writable, tree: Tree, now: () => number = () => Date.now()) {
    this.#out = out;
    this.#tree = tree;
    this.#now = now;
  }

  start(intervalMs = 200): void {
    this.#timer = setInterval(() => {
      this.draw();
    }, intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.draw();
  }

  draw(): void {
    const columns = (this.#out as { columns?: number }).columns;
    const width = columns !== undefined && columns > 20 ? columns : 100;
    const lines = this.#tree
      .nodes()
      .sort((a, b) => comparePaths(a.path, b.path))
      .map((node) => clip(renderNode(node, this.#now()), width));
    const up = this.#drawn > 0 ? `\u001b[${this.#drawn}F` : '';
    this.#out.write(`${up}${lines.map((line) => `\u001b[2K${line}`).join('\n')}\n`);
    this.#drawn = lines.length;
  }
}

export function renderNode(node: TreeNode, now: number): string {
  const indent = '  '.repeat(node.depth);
  const mark = MARK[node.status] ?? '✗';
  const tokens = node.usage.input_tokens + node.usage.output_tokens;
  const cost = node.usage.cost_usd === undefined ? '' : ` $${node.usage.cost_usd.toFixed(4)}`;
  const elapsed = ((node.endedAt ?? now) - node.createdAt) / 1000;
  const preview = node.instruction.replace(/\s+/g, ' ').slice(0, 60);
  return `${indent}${mark} ${node.path} ${node.status} · step ${node.steps} · ${formatTokens(tokens)} tok${cost} · ${elapsed.toFixed(1)}s · ${preview}`;
}

function formatTokens(tokens: number): string {
  return tokens >= 1000 ? `${(tokens / 1000).toFixed(1)}k` : String(tokens);
}

function clip(line: string, width: number): string {
  return line.length > width ? `${line.slice(0, Math.max(10, width - 1))}…` : line;
}

function comparePaths(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? -1) - (pb[i] ?? -1);
    if (d !== 0) return d;
  }
  return 0;
}
