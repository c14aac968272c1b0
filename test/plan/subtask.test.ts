import { describe, expect, it } from 'vitest';
import { NODE_KINDS, PlanSchema, SUBTASK_STATUSES, SubtaskSchema } from '../../src/plan/index.js';

const base = { id: 'a', instruction: 'A.' };

describe('SubtaskSchema', () => {
  it.each(SUBTASK_STATUSES)('accepts status `%s`', (status) => {
    expect(SubtaskSchema.parse({ ...base, status }).status).toBe(status);
  });

  it('has newt’s four statuses plus blocked and cancelled', () => {
    expect(SUBTASK_STATUSES).toEqual([
      'pending',
      'running',
      'done',
      'failed',
      'blocked',
      'cancelled',
    ]);
  });

  it.each(NODE_KINDS)('accepts kind `%s`', (kind) => {
    expect(SubtaskSchema.parse({ ...base, kind }).kind).toBe(kind);
  });

  it.each<[unknown, string]>([
    [{ ...base, dependz: [] }, 'unknown key'],
    [{ ...base, artifact_ref: { branch: 'b', sha: 'x' } }, 'unknown key in artifact_ref'],
    [{ ...base, caveat_policy: { fs_read: 'all', tools: 'all' } }, 'unknown axis'],
    [{ ...base, status: 'skipped' }, 'unknown status'],
    [{ ...base, artifact_ref: { pr: 1.5 } }, 'fractional pr'],
    [{ id: 'a' }, 'missing instruction'],
  ])('refuses %j (%s)', (input, _why) => {
    expect(SubtaskSchema.safeParse(input).success).toBe(false);
  });

  it('keeps the policy as written: omitted axes absent, "none" as the empty list', () => {
    const subtask = SubtaskSchema.parse({
      ...base,
      caveat_policy: { fs_read: 'all', net: 'none', max_calls: 'unlimited' },
    });
    expect(subtask.caveat_policy).toEqual({ fs_read: 'all', net: [], max_calls: 'unlimited' });
  });

  it('does not share default arrays between subtasks', () => {
    const plan = PlanSchema.parse({ subtask: [base, { ...base, id: 'b' }] });
    plan.subtask[0]?.deps.push('x');
    expect(plan.subtask[1]?.deps).toEqual([]);
  });
});

describe('PlanSchema', () => {
  it('defaults to concat aggregation and no subtasks, and refuses unknown keys', () => {
    expect(PlanSchema.parse({})).toEqual({ aggregation: 'concat', subtask: [] });
    expect(PlanSchema.safeParse({ subtasks: [] }).success).toBe(false);
  });
});
