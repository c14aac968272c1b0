import { describe, expect, it } from 'vitest';
import { PlanSchema, parsePlanToml, renderPlan } from '../../src/plan/index.js';
import { readPlanFixture } from '../helpers/plan-fixtures.js';

describe('renderPlan', () => {
  it('draws the tree by parent and each leaf’s deps, with statuses and kinds', () => {
    expect(renderPlan(parsePlanToml(readPlanFixture('valid/tree.toml')))).toBe(
      [
        'goal: Ship duration formatting',
        '5 subtasks, 3 leaves; aggregation lastwins',
        '3 pending, 1 running, 1 done',
        '',
        'tree',
        '○ epic [plan] pending: Duration work',
        '├── ○ fix-phase [phase] pending: Fix the formatter',
        '│   ├── ✓ fix [task] done: Fix `humanize_duration` so 90s renders as 1m 30s',
        '│   └── … fix-tests [task] running: Add edge-case tests for the formatter',
        '└── ○ docs [task] pending: Document the new format in README',
        '',
        'dependencies',
        '✓ fix        no deps',
        '… fix-tests  after ✓ fix',
        '○ docs       after ✓ fix, … fix-tests',
        '',
        'legend: ○ pending  … running  ✓ done  ✗ failed  ⊘ blocked  – cancelled',
        '',
      ].join('\n'),
    );
  });

  it('marks every status of a run-log', () => {
    const text = renderPlan(parsePlanToml(readPlanFixture('valid/run-log.run.toml')));
    expect(text).toContain('1 done, 1 failed, 1 blocked, 1 cancelled');
    expect(text).toContain('⊘ implement     after ✗ schema, – docs-outline');
    expect(text).toContain('– docs-outline [task] cancelled: Outline the user docs');
  });

  it('shows what cannot run instead of hiding it', () => {
    const plan = PlanSchema.parse({
      subtask: [
        { id: 'epic', instruction: 'Group' },
        { id: 'a', instruction: 'A', parent: 'epic' },
        { id: 'b', instruction: 'B', deps: ['epic', 'ghost'] },
        { id: 'orphan', instruction: 'O', parent: 'elsewhere' },
        { id: 'x', instruction: 'X', parent: 'y' },
        { id: 'y', instruction: 'Y', parent: 'x' },
      ],
    });
    const text = renderPlan(plan);
    expect(text).toContain(
      '○ b       after ○ epic (a branch: will stall), ? ghost (not in this plan)',
    );
    expect(text).toContain('○ orphan [task] pending (parent `elsewhere` is not in this plan): O');
    expect(text).toContain('not in the tree (parent cycle): `x`, `y`');
  });

  it('cuts long and multi-line instructions to one line', () => {
    const plan = PlanSchema.parse({
      subtask: [
        { id: 'long', instruction: 'x'.repeat(100) },
        { id: 'multi', instruction: 'First line\nsecond line' },
      ],
    });
    const text = renderPlan(plan);
    expect(text).toContain(`○ long [task] pending: ${'x'.repeat(71)}…\n`);
    expect(text).toContain('○ multi [task] pending: First line …\n');
  });

  it('draws an empty plan', () => {
    expect(renderPlan(PlanSchema.parse({}))).toContain(
      'tree\n(no subtasks)\n\ndependencies\n(no leaves)',
    );
  });

  it('labels levels past the drawn depth instead of indenting forever', () => {
    const subtask = Array.from({ length: 40 }, (_, i) => ({
      id: `t${i}`,
      instruction: 'x',
      ...(i > 0 ? { parent: `t${i - 1}` } : {}),
    }));
    const lines = renderPlan(PlanSchema.parse({ subtask })).split('\n');
    const deepest = lines.find((line) => line.includes(' t39 '));
    expect(deepest).toMatch(/└╴\(depth 39\) ○ t39 /);
    expect(deepest!.length).toBeLessThan(120);
  });
});
