import { describe, expect, it } from 'vitest';
import {
  PlanSchema,
  parsePlanToml,
  validatePlan,
  type PlanInput,
  type SubtaskInput,
} from '../../src/plan/index.js';
import { INVALID_PLANS, VALID_PLANS, readPlanFixture } from '../helpers/plan-fixtures.js';

function plan(...subtask: SubtaskInput[]): ReturnType<typeof PlanSchema.parse> {
  return PlanSchema.parse({ subtask } satisfies PlanInput);
}

function task(id: string, extra: Partial<SubtaskInput> = {}): SubtaskInput {
  return { id, instruction: `Do ${id}.`, ...extra };
}

describe('validatePlan on the fixtures', () => {
  it.each(VALID_PLANS)('$file has no findings', ({ file }) => {
    expect(validatePlan(parsePlanToml(readPlanFixture(file)))).toEqual([]);
  });

  it.each(INVALID_PLANS)('$file gives exactly its findings', ({ file, findings }) => {
    expect(validatePlan(parsePlanToml(readPlanFixture(file)))).toEqual(findings);
  });

  it('accepts a fragment whose dep and parent live outside it, only when told so', () => {
    const fragment = parsePlanToml(readPlanFixture('valid/fragment.toml'));
    expect(validatePlan(fragment, { fragment: true })).toEqual([]);
    expect(validatePlan(fragment).map((f) => f.code)).toEqual(['unknown_parent', 'unknown_dep']);
  });
});

describe('validatePlan cases', () => {
  it('an empty plan is valid (nothing to run is not "no leaves")', () => {
    expect(validatePlan(plan())).toEqual([]);
  });

  it('reports each duplicate against the first definition', () => {
    const findings = validatePlan(plan(task('a'), task('a'), task('b'), task('a')));
    expect(findings.map((f) => f.message)).toEqual([
      'subtask id `a` is defined more than once: #1 and #2',
      'subtask id `a` is defined more than once: #1 and #4',
    ]);
  });

  it('reports a dep listed twice once', () => {
    const findings = validatePlan(plan(task('a', { deps: ['x', 'x'] })));
    expect(findings).toHaveLength(1);
    expect(findings[0]?.code).toBe('unknown_dep');
  });

  it('names a blank-id subtask by position in its other findings', () => {
    const findings = validatePlan(plan(task('a'), { id: '', instruction: ' ', deps: ['zz'] }));
    expect(findings.map((f) => f.message)).toEqual([
      'subtask #2 has a blank `id`',
      'subtask #2 has a blank `instruction`',
      'subtask #2 depends on `zz`, which no subtask defines',
    ]);
  });

  it('reports each distinct cycle once, in document order, each starting at its first subtask', () => {
    const findings = validatePlan(
      plan(
        task('x', { deps: ['y'] }),
        task('a', { deps: ['c'] }),
        task('y', { deps: ['x'] }),
        task('b', { deps: ['a'] }),
        task('c', { deps: ['b'] }),
        task('s', { deps: ['s'] }),
        task('free', { deps: ['a', 'x'] }),
      ),
    );
    expect(findings.map((f) => [f.code, f.ids])).toEqual([
      ['dep_cycle', ['x', 'y']],
      ['dep_cycle', ['a', 'c', 'b']],
      ['dep_cycle', ['s']],
    ]);
    expect(findings[1]?.message).toBe(
      'dependency cycle: `a` → `c` → `b` → `a` (each depends on the next)',
    );
  });

  it('names the shortest cycle and the rest of a tangle of cycles', () => {
    // a ⇄ b, and b → c → d → a: one strongly connected group of four.
    const findings = validatePlan(
      plan(
        task('a', { deps: ['b'] }),
        task('b', { deps: ['a', 'c'] }),
        task('c', { deps: ['d'] }),
        task('d', { deps: ['a'] }),
      ),
    );
    expect(findings).toEqual([
      {
        code: 'dep_cycle',
        ids: ['a', 'b', 'c', 'd'],
        message:
          'dependency cycle: `a` → `b` → `a` (each depends on the next); also caught in it: `c`, `d`',
      },
    ]);
  });

  it('reports a parent cycle once, with the subtasks hanging under it left alone', () => {
    const findings = validatePlan(
      plan(
        task('leaf', { parent: 'c' }),
        task('c', { parent: 'a' }),
        task('a', { parent: 'b' }),
        task('b', { parent: 'c' }),
      ),
    );
    expect(findings).toEqual([
      {
        code: 'parent_cycle',
        ids: ['c', 'a', 'b'],
        message: 'parent cycle: `c` → `a` → `b` → `c` (each names the next as its parent)',
      },
    ]);
  });

  it('finds no leaves when duplicate ids make every subtask a branch', () => {
    const findings = validatePlan(plan(task('a'), task('a', { parent: 'a' })));
    expect(findings.map((f) => f.code)).toEqual(['duplicate_id', 'no_leaves']);
  });

  it('flags a dep on a branch even when the dependent is itself in the tree', () => {
    const findings = validatePlan(
      plan(
        task('epic'),
        task('x', { parent: 'epic' }),
        task('y', { parent: 'epic', deps: ['epic'] }),
      ),
    );
    expect(findings.map((f) => [f.code, f.ids])).toEqual([['dep_on_branch', ['y', 'epic']]]);
  });

  it('handles 100k subtasks in chains and cycles without overflowing the stack', () => {
    const n = 100_000;
    const ids = Array.from({ length: n }, (_, i) => `t${i}`);
    const chain = plan(...ids.map((id, i) => task(id, i > 0 ? { deps: [`t${i - 1}`] } : {})));
    expect(validatePlan(chain)).toEqual([]);
    const ring = plan(...ids.map((id, i) => task(id, { deps: [`t${(i + 1) % n}`] })));
    const [cycle] = validatePlan(ring);
    expect(cycle?.code).toBe('dep_cycle');
    expect(cycle?.ids).toHaveLength(n);
    const parents = plan(...ids.map((id, i) => task(id, { parent: `t${(i + 1) % n}` })));
    expect(validatePlan(parents).map((f) => f.code)).toEqual(['parent_cycle', 'no_leaves']);
  });
});
