import type { Plan } from './plan.js';
import { branchIds } from './plan-tree.js';
import { SUBTASK_STATUSES, type Subtask, type SubtaskStatus } from './subtask.js';

/** The marker drawn before a subtask in each status. */
const STATUS_MARKERS: Record<SubtaskStatus, string> = {
  pending: '○',
  running: '…',
  done: '✓',
  failed: '✗',
  blocked: '⊘',
  cancelled: '–',
};

/** Tree levels drawn with indentation; deeper levels are labelled with their depth. */
const MAX_DRAWN_DEPTH = 16;

/** Instructions are cut to their first line and this many characters. */
const INSTRUCTION_WIDTH = 72;

/**
 * Draws a plan as plain text that reads well in a terminal or a pipe: a summary, the task tree by
 * `parent` with each node's status, kind and instruction, and the DAG as each leaf's deps with
 * their statuses. Subtasks outside the tree (a parent cycle) and deps that cannot be met (an
 * unknown id, a branch) are shown, not hidden: this is what a person reads before a run.
 */
export function renderPlan(plan: Plan): string {
  const lines = [...summary(plan), '', 'tree', ...tree(plan), '', 'dependencies', ...dag(plan)];
  lines.push('', `legend: ${SUBTASK_STATUSES.map((s) => `${STATUS_MARKERS[s]} ${s}`).join('  ')}`);
  return `${lines.join('\n')}\n`;
}

function summary(plan: Plan): string[] {
  const counts = SUBTASK_STATUSES.map((status) => ({
    status,
    n: plan.subtask.filter((subtask) => subtask.status === status).length,
  })).filter(({ n }) => n > 0);
  const leafCount = leafIndices(plan).length;
  const lines = plan.goal === undefined ? [] : [`goal: ${firstLine(plan.goal)}`];
  lines.push(
    `${plural(plan.subtask.length, 'subtask')}, ${plural(leafCount, 'leaf', 'leaves')}; aggregation ${plan.aggregation}`,
  );
  if (counts.length > 0) lines.push(counts.map(({ status, n }) => `${n} ${status}`).join(', '));
  return lines;
}

function tree(plan: Plan): string[] {
  const ids = new Set(plan.subtask.map((subtask) => subtask.id));
  const childrenOf = new Map<string, number[]>();
  const rootIndices: number[] = [];
  plan.subtask.forEach((subtask, i) => {
    if (subtask.parent === undefined || !ids.has(subtask.parent)) rootIndices.push(i);
    else childrenOf.set(subtask.parent, [...(childrenOf.get(subtask.parent) ?? []), i]);
  });
  const drawn = new Set<number>();
  const lines: string[] = [];
  // An explicit stack, not recursion: a chain of 100k parents must not overflow.
  const stack = rootIndices.map((i) => ({ i, depth: 0, lead: '', branch: '' })).reverse();
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const subtask = plan.subtask[item.i];
    if (subtask === undefined || drawn.has(item.i)) continue;
    drawn.add(item.i);
    lines.push(`${item.branch}${node(subtask, ids)}`);
    const kids = (childrenOf.get(subtask.id) ?? []).filter((k) => !drawn.has(k));
    [...kids].reverse().forEach((k, n) => {
      const last = n === 0;
      const depth = item.depth + 1;
      // Past a depth no one reads as a drawing, say the depth instead of indenting further.
      const deep = depth > MAX_DRAWN_DEPTH;
      stack.push({
        i: k,
        depth,
        branch: deep
          ? `${item.lead.slice(0, MAX_DRAWN_DEPTH * 4)}└╴(depth ${depth}) `
          : `${item.lead}${last ? '└── ' : '├── '}`,
        lead: deep ? item.lead : `${item.lead}${last ? '    ' : '│   '}`,
      });
    });
  }
  if (lines.length === 0 && plan.subtask.length === 0) lines.push('(no subtasks)');
  const outside = plan.subtask.filter((_, i) => !drawn.has(i)).map((s) => `\`${s.id}\``);
  if (outside.length > 0) lines.push(`not in the tree (parent cycle): ${outside.join(', ')}`);
  return lines;
}

function node(subtask: Subtask, ids: ReadonlySet<string>): string {
  const orphan =
    subtask.parent !== undefined && !ids.has(subtask.parent)
      ? ` (parent \`${subtask.parent}\` is not in this plan)`
      : '';
  const instruction = firstLine(subtask.instruction);
  return `${STATUS_MARKERS[subtask.status]} ${subtask.id} [${subtask.kind}] ${subtask.status}${orphan}${instruction === '' ? '' : `: ${instruction}`}`;
}

function dag(plan: Plan): string[] {
  const branches = branchIds(plan);
  const leaves = plan.subtask.filter((subtask) => !branches.has(subtask.id));
  if (leaves.length === 0) return ['(no leaves)'];
  const byId = new Map<string, Subtask>();
  for (const subtask of [...plan.subtask].reverse()) byId.set(subtask.id, subtask);
  const width = Math.min(
    24,
    leaves.reduce((max, leaf) => Math.max(max, leaf.id.length), 0),
  );
  return leaves.map((leaf) => {
    const deps = leaf.deps.map((dep) => {
      const target = byId.get(dep);
      if (target === undefined) return `? ${dep} (not in this plan)`;
      const stall = branches.has(dep) ? ' (a branch: will stall)' : '';
      return `${STATUS_MARKERS[target.status]} ${dep}${stall}`;
    });
    const after = deps.length === 0 ? 'no deps' : `after ${deps.join(', ')}`;
    return `${STATUS_MARKERS[leaf.status]} ${leaf.id.padEnd(width)}  ${after}`;
  });
}

function leafIndices(plan: Plan): number[] {
  const branches = branchIds(plan);
  return plan.subtask.flatMap((subtask, i) => (branches.has(subtask.id) ? [] : [i]));
}

function firstLine(text: string): string {
  const lines = text.trim().split('\n');
  const line = (lines[0] ?? '').trim();
  const cut = line.length > INSTRUCTION_WIDTH ? `${line.slice(0, INSTRUCTION_WIDTH - 1)}…` : line;
  return lines.length > 1 && cut === line ? `${cut} …` : cut;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
