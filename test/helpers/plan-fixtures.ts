import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FindingCode } from '../../src/plan/index.js';

export const PLAN_FIXTURES = fileURLToPath(new URL('../fixtures/plans/', import.meta.url));

export function planFixturePath(name: string): string {
  return `${PLAN_FIXTURES}${name}`;
}

export function readPlanFixture(name: string): string {
  return readFileSync(planFixturePath(name), 'utf8');
}

/** The valid fixtures and what `arbor plan validate` says about them. */
export const VALID_PLANS: { file: string; subtasks: number; leaves: number }[] = [
  { file: 'valid/diamond.toml', subtasks: 4, leaves: 4 },
  { file: 'valid/tree.toml', subtasks: 5, leaves: 3 },
  { file: 'valid/run-log.run.toml', subtasks: 4, leaves: 4 },
];

/** One fixture per validation class, with every finding it must produce, in order. */
export const INVALID_PLANS: {
  file: string;
  findings: { code: FindingCode; ids: string[]; message: string }[];
}[] = [
  {
    file: 'invalid/duplicate-id.toml',
    findings: [
      {
        code: 'duplicate_id',
        ids: ['a'],
        message: 'subtask id `a` is defined more than once: #1 and #3',
      },
    ],
  },
  {
    file: 'invalid/blank-id.toml',
    findings: [{ code: 'blank_id', ids: [], message: 'subtask #2 has a blank `id`' }],
  },
  {
    file: 'invalid/blank-instruction.toml',
    findings: [
      {
        code: 'blank_instruction',
        ids: ['a'],
        message: 'subtask `a` has a blank `instruction`',
      },
    ],
  },
  {
    file: 'invalid/unknown-dep.toml',
    findings: [
      {
        code: 'unknown_dep',
        ids: ['b', 'x'],
        message: 'subtask `b` depends on `x`, which no subtask defines',
      },
    ],
  },
  {
    file: 'invalid/unknown-parent.toml',
    findings: [
      {
        code: 'unknown_parent',
        ids: ['b', 'x'],
        message: 'subtask `b` names `x` as its parent, which no subtask defines',
      },
    ],
  },
  {
    file: 'invalid/dep-on-branch.toml',
    findings: [
      {
        code: 'dep_on_branch',
        ids: ['b', 'epic'],
        message:
          'subtask `b` depends on `epic`, which is a branch (other subtasks name it as parent); a branch is never dispatched, so subtask `b` would never start — depend on its leaves instead',
      },
    ],
  },
  {
    file: 'invalid/dep-cycle.toml',
    findings: [
      {
        code: 'dep_cycle',
        ids: ['a', 'b', 'c'],
        message: 'dependency cycle: `a` → `b` → `c` → `a` (each depends on the next)',
      },
    ],
  },
  {
    file: 'invalid/self-dep.toml',
    findings: [
      { code: 'dep_cycle', ids: ['a'], message: 'dependency cycle: `a` depends on itself' },
    ],
  },
  {
    file: 'invalid/parent-cycle.toml',
    findings: [
      {
        code: 'parent_cycle',
        ids: ['a', 'b'],
        message: 'parent cycle: `a` → `b` → `a` (each names the next as its parent)',
      },
    ],
  },
  {
    file: 'invalid/no-leaves.toml',
    findings: [
      { code: 'parent_cycle', ids: ['a'], message: 'parent cycle: `a` names itself as its parent' },
      {
        code: 'no_leaves',
        ids: [],
        message:
          'the plan has 1 subtask but no leaves: each is named as a parent, so nothing would be dispatched',
      },
    ],
  },
];

/** Files that are not plans at all: each fails to parse, with these lines (after the path). */
export const UNPARSABLE_PLANS: { file: string; problems: string[] }[] = [
  {
    file: 'invalid/unknown-key.toml',
    problems: ['subtask `fix` (#2): unknown key `dependz` (did you mean `deps`?)'],
  },
  {
    file: 'invalid/policy-unknown-axis.toml',
    problems: ['subtask `a` (#1): `caveat_policy`: unknown key `network` (did you mean `net`?)'],
  },
  {
    file: 'invalid/bad-field.toml',
    problems: [
      'subtask `a` (#1): `status`: expected "pending" | "running" | "done" | "failed" | "blocked" | "cancelled", got "skipped"',
      'subtask #2: `id`: required field is missing',
    ],
  },
];
