import { describe, expect, it } from 'vitest';
import {
  PlanSchema,
  branchIds,
  children,
  isBranch,
  leaves,
  parsePlanToml,
  roots,
  subtaskById,
} from '../../src/plan/index.js';
import { readPlanFixture } from '../helpers/plan-fixtures.js';

const tree = parsePlanToml(readPlanFixture('valid/tree.toml'));
const ids = (list: { id: string }[]): string[] => list.map((s) => s.id);

describe('plan tree', () => {
  it('reads roots, children and leaves from parent pointers, in document order', () => {
    expect(ids(roots(tree))).toEqual(['epic']);
    expect(ids(children(tree, 'epic'))).toEqual(['fix-phase', 'docs']);
    expect(ids(children(tree, 'fix-phase'))).toEqual(['fix', 'fix-tests']);
    expect(ids(children(tree, 'fix'))).toEqual([]);
    expect(ids(leaves(tree))).toEqual(['fix', 'fix-tests', 'docs']);
    expect([...branchIds(tree)]).toEqual(['epic', 'fix-phase']);
    expect(isBranch(tree, 'epic')).toBe(true);
    expect(isBranch(tree, 'fix')).toBe(false);
  });

  it('makes every subtask of a flat plan a root and a leaf', () => {
    const flat = parsePlanToml(readPlanFixture('valid/diamond.toml'));
    expect(ids(roots(flat))).toEqual(ids(flat.subtask));
    expect(ids(leaves(flat))).toEqual(ids(flat.subtask));
  });

  it('keeps a soft parent: a subtask whose parent is elsewhere is a leaf, not a root', () => {
    const fragment = parsePlanToml(readPlanFixture('valid/fragment.toml'));
    expect(ids(leaves(fragment))).toEqual(['docs']);
    expect(ids(roots(fragment))).toEqual([]);
  });

  it('finds the first subtask with an id', () => {
    const plan = PlanSchema.parse({
      subtask: [
        { id: 'a', instruction: 'first' },
        { id: 'a', instruction: 'second' },
      ],
    });
    expect(subtaskById(plan, 'a')?.instruction).toBe('first');
    expect(subtaskById(plan, 'zz')).toBeUndefined();
  });
});
