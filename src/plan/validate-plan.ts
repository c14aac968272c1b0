import { cyclicComponents, functionalCycles, shortestCycleThrough } from './find-cycles.js';
import type { Plan } from './plan.js';
import type { Subtask } from './subtask.js';

export type FindingCode =
  | 'blank_id'
  | 'duplicate_id'
  | 'blank_instruction'
  | 'unknown_dep'
  | 'unknown_parent'
  | 'dep_on_branch'
  | 'dep_cycle'
  | 'parent_cycle'
  | 'no_leaves';

/** One reason a plan cannot run as written. */
export interface PlanFinding {
  code: FindingCode;
  /** The subtask ids involved, the subject first (for a cycle: every id on it, in order). */
  ids: string[];
  message: string;
}

export interface ValidatePlanOptions {
  /**
   * The plan is a slice of a larger one: a dep or parent naming a subtask outside it is allowed
   * (it stays unsatisfied, so the slice waits rather than running ahead).
   */
  fragment?: boolean;
}

/**
 * Everything that would make a plan stall, loop or do the wrong thing, each with a message that
 * names the subtasks involved. An empty list means the plan can run. Linear in subtasks plus
 * edges (one id lookup per pointer): a plan of 100k subtasks validates in well under a second.
 */
export function validatePlan(plan: Plan, options: ValidatePlanOptions = {}): PlanFinding[] {
  const subtasks = plan.subtask;
  const findings: PlanFinding[] = [];
  const known = indexIds(subtasks, findings);
  const fragment = options.fragment === true;
  // Pointers resolved to the first subtask with that id (duplicates are reported above).
  const parentOf = new Int32Array(subtasks.length).fill(-1);
  const isBranch = new Uint8Array(subtasks.length);
  subtasks.forEach((subtask, i) => {
    if (subtask.parent === undefined) return;
    const parent = known.get(subtask.parent);
    if (parent !== undefined) {
      parentOf[i] = parent;
      isBranch[parent] = 1;
    } else if (!fragment) {
      const message = `${nameOf(subtask, i)} names \`${subtask.parent}\` as its parent, which no subtask defines`;
      findings.push(finding('unknown_parent', [subtask.id, subtask.parent], message));
    }
  });
  const edges = subtasks.map((subtask, i) =>
    checkDeps(findings, subtask, i, known, isBranch, fragment),
  );
  findings.push(...depCycles(subtasks, edges), ...parentCycles(subtasks, Array.from(parentOf)));
  const leafCount = subtasks.filter(
    (subtask) => isBranch[known.get(subtask.id) ?? -1] !== 1,
  ).length;
  if (subtasks.length > 0 && leafCount === 0) {
    const n = `${subtasks.length} subtask${subtasks.length === 1 ? '' : 's'}`;
    const message = `the plan has ${n} but no leaves: each is named as a parent, so nothing would be dispatched`;
    findings.push(finding('no_leaves', [], message));
  }
  return findings;
}

/** Maps each id to its first position, reporting blank and duplicated ids. */
function indexIds(subtasks: readonly Subtask[], findings: PlanFinding[]): Map<string, number> {
  const known = new Map<string, number>();
  subtasks.forEach((subtask, i) => {
    if (isBlank(subtask.id)) {
      findings.push(finding('blank_id', [], `subtask #${i + 1} has a blank \`id\``));
      return;
    }
    const first = known.get(subtask.id);
    if (first === undefined) known.set(subtask.id, i);
    else findings.push(duplicate(subtask.id, first, i));
  });
  return known;
}

/**
 * Reports a blank instruction and deps that can never be met (unknown, or a branch); returns the
 * deps that name a subtask, as positions, for cycle finding.
 */
function checkDeps(
  findings: PlanFinding[],
  subtask: Subtask,
  position: number,
  known: ReadonlyMap<string, number>,
  isBranch: Uint8Array,
  fragment: boolean,
): number[] {
  const name = nameOf(subtask, position);
  if (isBlank(subtask.instruction)) {
    findings.push(
      finding('blank_instruction', [subtask.id], `${name} has a blank \`instruction\``),
    );
  }
  const targets: number[] = [];
  for (const dep of subtask.deps.length > 1 ? new Set(subtask.deps) : subtask.deps) {
    const target = known.get(dep);
    if (target === undefined) {
      if (fragment) continue;
      const message = `${name} depends on \`${dep}\`, which no subtask defines`;
      findings.push(finding('unknown_dep', [subtask.id, dep], message));
      continue;
    }
    targets.push(target);
    if (isBranch[target] === 1) {
      const message = `${name} depends on \`${dep}\`, which is a branch (other subtasks name it as parent); a branch is never dispatched, so ${name} would never start — depend on its leaves instead`;
      findings.push(finding('dep_on_branch', [subtask.id, dep], message));
    }
  }
  return targets;
}

function depCycles(subtasks: readonly Subtask[], edges: readonly number[][]): PlanFinding[] {
  return cyclicComponents(edges).map((component) => {
    const start = component[0] ?? 0;
    const cycle = shortestCycleThrough(edges, component, start).map((i) => idAt(subtasks, i));
    const onCycle = new Set(cycle);
    const others = component.map((i) => idAt(subtasks, i)).filter((id) => !onCycle.has(id));
    const what =
      cycle.length === 1
        ? `\`${cycle[0]}\` depends on itself`
        : `${arrowPath(cycle)} (each depends on the next)`;
    const also = others.length > 0 ? `; also caught in it: ${others.map(quote).join(', ')}` : '';
    return finding('dep_cycle', [...cycle, ...others], `dependency cycle: ${what}${also}`);
  });
}

function parentCycles(subtasks: readonly Subtask[], parentOf: readonly number[]): PlanFinding[] {
  return functionalCycles(parentOf).map((indices) => {
    const cycle = indices.map((i) => idAt(subtasks, i));
    const what =
      cycle.length === 1
        ? `\`${cycle[0]}\` names itself as its parent`
        : `${arrowPath(cycle)} (each names the next as its parent)`;
    return finding('parent_cycle', cycle, `parent cycle: ${what}`);
  });
}

/** "subtask `fix`", or "subtask #3" when the id is blank. */
function nameOf(subtask: Subtask, position: number): string {
  return isBlank(subtask.id) ? `subtask #${position + 1}` : `subtask ${quote(subtask.id)}`;
}

/** Blank: empty or only whitespace. A regex test, not `trim()`, so nothing is allocated. */
function isBlank(text: string): boolean {
  return !/\S/.test(text);
}

function duplicate(id: string, first: number, again: number): PlanFinding {
  const message = `subtask id \`${id}\` is defined more than once: #${first + 1} and #${again + 1}`;
  return finding('duplicate_id', [id], message);
}

function finding(code: FindingCode, ids: string[], message: string): PlanFinding {
  return { code, ids, message };
}

function idAt(subtasks: readonly Subtask[], i: number): string {
  return subtasks[i]?.id ?? '';
}

function arrowPath(cycle: readonly string[]): string {
  return [...cycle, cycle[0] ?? ''].map(quote).join(' → ');
}

function quote(id: string): string {
  return `\`${id}\``;
}
