import type { Writable } from 'node:stream';
import { addUsage } from '../loop/index.js';
import type { Usage } from '../protocol/index.js';
import { subtreeUsage, type Tree, type TreeNode } from '../supervisor/index.js';
import { splitText } from './runs-view.js';

const MARK: Record<string, string> = {
  pending: '·',
  spawning: '◌',
  running: '●',
  paused: '‖',
  parked: '◇',
  completed: '✓',
  refused: '⊘',
  cancelled: '–',
};

/** Lines of a streaming answer shown under the tree: its last ones, so a redraw stays on screen. */
const ANSWER_LINES = 12;

/**
 * The live tree on a terminal's stderr: one line per node (status, step, tokens and cost — its own,
 * and its subtree's when it has children — elapsed time, instruction) and a total line, redrawn in
 * place a few times a second and once more at the end. When the root's answer streams to the same
 * terminal, it is drawn below the tree (its last lines), so the two never write over each other;
 * at the end the tree stays and the answer is printed whole after it.
 */
export class LiveTree {
  readonly #out: Writable;
  readonly #tree: Tree;
  readonly #now: () => number;
  #drawn = 0;
  #timer: NodeJS.Timeout | undefined;
  #answer = '';
  #lastDraw = 0;
  #pending: NodeJS.Timeout | undefined;

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

  /** The streaming answer shown below the tree ('' for none); drawn within 50 ms. */
  setAnswer(text: string): void {
    this.#answer = text;
    if (this.#timer === undefined || this.#pending !== undefined) return;
    const wait = Math.max(0, this.#lastDraw + 50 - this.#now());
    if (wait === 0) {
      this.draw();
      return;
    }
    this.#pending = setTimeout(() => {
      this.#pending = undefined;
      this.draw();
    }, wait);
    this.#pending.unref();
  }

  /** Draws the last frame, without the answer pane (the answer is printed whole after it). */
  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    if (this.#pending !== undefined) clearTimeout(this.#pending);
    this.#timer = this.#pending = undefined;
    this.#answer = '';
    this.draw();
  }

  draw(): void {
    const columns = (this.#out as { columns?: number }).columns;
    const width = columns !== undefined && columns > 20 ? columns : 100;
    const nodes = this.#tree.nodes();
    const lines = nodes
      .sort((a, b) => comparePaths(a.path, b.path))
      .map((node) => clip(renderNode(node, this.#now(), subtreeOf(this.#tree, node)), width));
    lines.push(clip(renderTotal(nodes), width));
    if (this.#answer !== '') lines.push('', ...answerLines(this.#answer, width));
    // Back to the frame's first line, and everything below it cleared: a shorter frame leaves
    // nothing of the longer one behind.
    const up = this.#drawn > 0 ? `\u001b[${this.#drawn}F\u001b[J` : '';
    this.#out.write(`${up}${lines.map((line) => `\u001b[2K${line}`).join('\n')}\n`);
    this.#drawn = lines.length;
    this.#lastDraw = this.#now();
  }
}

/** The last lines of an answer, wrapped to the terminal's width. */
export function answerLines(text: string, width: number): string[] {
  const wrapped = text
    .replace(/\t/g, '  ')
    .split('\n')
    .flatMap((line) => {
      if (line.length <= width) return [line];
      const parts: string[] = [];
      for (let at = 0; at < line.length; at += width) parts.push(line.slice(at, at + width));
      return parts;
    });
  return wrapped.slice(-ANSWER_LINES);
}

export function renderNode(node: TreeNode, now: number, subtree?: Usage): string {
  const indent = '  '.repeat(node.depth);
  const mark = MARK[node.status] ?? '✗';
  const elapsed = ((node.endedAt ?? now) - node.createdAt) / 1000;
  const preview = node.instruction.replace(/\s+/g, ' ').slice(0, 60);
  const below = subtree === undefined ? '' : ` (subtree ${formatUsage(subtree)})`;
  return `${indent}${mark} ${node.path} ${node.status}${formatWaiting(node, now)} · step ${node.steps} · ${formatUsage(node.usage)}${below}${formatTrajectory(node)} · ${elapsed.toFixed(1)}s · ${preview}`;
}

/** Spawns of the node queued for the spawn rate or its breadth; its call held for a rate limit. */
function formatWaiting(node: TreeNode, now: number): string {
  const waiting = node.waitingSpawns ?? 0;
  const spawns = waiting === 0 ? '' : ` (waiting to spawn ${waiting})`;
  const rate = node.rateWait;
  if (rate === undefined) return spawns;
  const waited = (Math.max(0, now - rate.since) / 1000).toFixed(1);
  return `${spawns} (rate wait ${waited}s: endpoint ${rate.endpoint} ${rate.limit.replace('_', ' ')})`;
}

/** The node's runtime trust, once it is worth a glance: its risk and what it has taken in. */
function formatTrajectory(node: TreeNode): string {
  const t = node.trajectory;
  if (t === undefined || (t.risk === 0 && !t.exposed && !t.sensitive)) return '';
  const taken = [t.exposed ? 'exposed' : '', t.sensitive ? 'sensitive' : ''].filter(
    (w) => w !== '',
  );
  return ` · risk ${t.risk.toFixed(2)}${taken.length === 0 ? '' : ` ${taken.join('+')}`}`;
}

/** The closing line: what the whole tree has used. */
function renderTotal(nodes: readonly TreeNode[]): string {
  const total = nodes.reduce<Usage>((sum, node) => addUsage(sum, node.usage), {
    input_tokens: 0,
    output_tokens: 0,
  });
  return `total · ${nodes.length} node${nodes.length === 1 ? '' : 's'} · ${formatUsage(total)}`;
}

/** A node's subtree usage, only when it has children (else it is the node's own). */
function subtreeOf(tree: Tree, node: TreeNode): Usage | undefined {
  if (node.children.length === 0) return undefined;
  return subtreeUsage(tree, node.id);
}

/** `1.2k tok (900 cached) $0.0031`: the splits only where the provider reported them. */
function formatUsage(usage: Usage): string {
  const tokens = `${formatTokens(usage.input_tokens + usage.output_tokens)} tok${splitText(usage, true)}`;
  return usage.cost_usd === undefined ? tokens : `${tokens} $${usage.cost_usd.toFixed(4)}`;
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
