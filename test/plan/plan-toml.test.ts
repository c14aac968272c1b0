import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AGGREGATIONS,
  NODE_KINDS,
  SUBTASK_STATUSES,
  parsePlanToml,
  stringifyPlan,
  type Plan,
  type Subtask,
} from '../../src/plan/index.js';
import { isArborError, type ArborError, type Scope } from '../../src/protocol/index.js';
import { UNPARSABLE_PLANS, readPlanFixture } from '../helpers/plan-fixtures.js';
import { type CaveatPolicy } from '../../src/authority/index.js';

function parseError(text: string, source?: string): ArborError {
  try {
    parsePlanToml(text, source === undefined ? {} : { source });
  } catch (error) {
    if (isArborError(error, 'plan_invalid')) return error;
    throw error;
  }
  throw new Error('expected the plan to be refused');
}

describe('parsePlanToml', () => {
  it('parses a plan with a goal, an aggregation and every seed field', () => {
    const plan = parsePlanToml(readPlanFixture('valid/tree.toml'));
    expect(plan.goal).toBe('Ship duration formatting');
    expect(plan.aggregation).toBe('lastwins');
    expect(plan.subtask.map((s) => s.id)).toEqual([
      'epic',
      'fix-phase',
      'fix',
      'fix-tests',
      'docs',
    ]);
    expect(plan.subtask[0]).toEqual({
      id: 'epic',
      instruction: 'Duration work',
      deps: [],
      parallel_ok: false,
      context: [],
      status: 'pending',
      kind: 'plan',
      conversation_id: '1720000000000-abc',
      caveat_policy: {},
    });
    expect(plan.subtask[2]).toMatchObject({
      parent: 'fix-phase',
      context: ['src/util.ts', 'test/'],
      verify: 'npm test -- humanize',
      status: 'done',
      result: 'landed on branch plan/fix at 1a2b3c4',
      artifact_ref: { branch: 'plan/fix', commit: '1a2b3c4' },
      caveat_policy: {
        fs_read: 'all',
        fs_write: ['src/', 'test/'],
        exec: ['npm test -- humanize'],
        net: [],
        max_calls: 40,
      },
    });
  });

  it('fills in the seed defaults', () => {
    const [subtask] = parsePlanToml('[[subtask]]\nid = "a"\ninstruction = "A."\n').subtask;
    expect(subtask).toEqual({
      id: 'a',
      instruction: 'A.',
      deps: [],
      parallel_ok: false,
      context: [],
      status: 'pending',
      kind: 'task',
      caveat_policy: {},
    });
  });

  it('parses a fragment (no goal) on its own', () => {
    const plan = parsePlanToml(readPlanFixture('valid/fragment.toml'));
    expect(plan.goal).toBeUndefined();
    expect(plan.aggregation).toBe('concat');
    expect(plan.subtask).toHaveLength(1);
  });

  it.each(['', '\n\n', '# only a comment\n', '\uFEFF'])('reads %j as an empty plan', (text) => {
    expect(parsePlanToml(text)).toEqual({ aggregation: 'concat', subtask: [] });
  });

  it.each(UNPARSABLE_PLANS)(
    'refuses $file, naming the subtask and the key',
    ({ file, problems }) => {
      const error = parseError(readPlanFixture(file), 'plan.toml');
      const lines = problems.map((problem) => `plan.toml: ${problem}`);
      expect(error.message).toBe(lines.join('\n'));
      expect(error.details.problems).toEqual(lines);
    },
  );

  it.each([
    ['goals = "x"', 'unknown key `goals` (did you mean `goal`?)'],
    [
      'aggregation = "sum"',
      '`aggregation`: expected "concat" | "lastwins" | "reduce" | "custom", got "sum"',
    ],
    [
      '[subtask]\nid = "a"',
      '`subtask`: expected an array, got an object; write each subtask as a `[[subtask]]` table',
    ],
    ['[[subtask]]\nid = "a"', 'subtask `a` (#1): `instruction`: required field is missing'],
    [
      '[[subtask]]\nid = "a"\ninstruction = "A."\ndeps = "b"',
      'subtask `a` (#1): `deps`: expected an array, got "b"',
    ],
    [
      '[[subtask]]\nid = "a"\ninstruction = "A."\nkind = "epic"',
      'subtask `a` (#1): `kind`: expected "roadmap" | "phase" | "plan" | "task", got "epic"',
    ],
    [
      '[[subtask]]\nid = "a"\ninstruction = "A."\nparallel_ok = "yes"',
      'subtask `a` (#1): `parallel_ok`: expected a boolean, got "yes"',
    ],
    [
      '[[subtask]]\nid = "a"\ninstruction = "A."\n[subtask.artifact_ref]\npr = 0',
      'subtask `a` (#1): `artifact_ref.pr`: expected a positive integer, got 0',
    ],
    [
      '[[subtask]]\nid = "a"\ninstruction = "A."\n[subtask.artifact_ref]\nsha = "1"',
      'subtask `a` (#1): `artifact_ref`: unknown key `sha`',
    ],
    [
      '[[subtask]]\nid = "a"\ninstruction = "A."\n[subtask.caveat_policy]\nexec = "some"',
      'subtask `a` (#1): `caveat_policy.exec`: expected "all", "none" or a list of strings, got "some"',
    ],
    [
      '[[subtask]]\nid = "a"\ninstruction = "A."\n[subtask.caveat_policy]\nmax_calls = -1',
      'subtask `a` (#1): `caveat_policy.max_calls`: expected a non-negative integer, got -1',
    ],
    [
      '[[subtask]]\nid = ""\ninstruction = 3',
      'subtask #1: `instruction`: expected a string, got 3',
    ],
    [
      '[[subtask]]\nid = "a"\ninstruction = 1979-05-27',
      'subtask `a` (#1): `instruction`: expected a string, got an object',
    ],
  ])('refuses %j: %s', (text, problem) => {
    expect(parseError(text, 'plan.toml').message).toBe(`plan.toml: ${problem}`);
  });

  it('reports a TOML syntax error with its line and column', () => {
    const error = parseError(readPlanFixture('invalid/syntax-error.toml'), 'plan.toml');
    expect(error.message.split('\n')[0]).toMatch(/^plan\.toml:3:18: invalid TOML: /);
    expect(error.details).toMatchObject({ line: 3, column: 18 });
  });

  it('refuses `__proto__` and `constructor` keys outright', () => {
    expect(parseError('[[subtask]]\n__proto__ = 1').message).toMatch(
      /^plan:2:1: invalid TOML: .*unsafe/,
    );
    expect(parseError('constructor = 1').message).toMatch(/unsafe/);
  });

  it('omits the file prefix when no source is given', () => {
    expect(parseError('x = 1').message).toBe('unknown key `x`');
  });
});

describe('stringifyPlan', () => {
  it('writes canonical TOML: defaults left out, scalars before sub-tables, "none" for []', () => {
    const plan = parsePlanToml(
      [
        'aggregation = "concat"',
        'goal = "G"',
        '[[subtask]]',
        'status = "pending"',
        'kind = "task"',
        'instruction = "Fix it."',
        'id = "fix"',
        'deps = []',
        '[subtask.caveat_policy]',
        'max_calls = 3',
        'net = []',
        'fs_read = "all"',
        '[subtask.artifact_ref]',
        'pr = 7',
        '[[subtask]]',
        'id = "docs"',
        'instruction = "Docs."',
        'deps = ["fix"]',
        'parallel_ok = true',
        'status = "done"',
      ].join('\n'),
    );
    expect(stringifyPlan(plan)).toBe(
      [
        'goal = "G"',
        '',
        '[[subtask]]',
        'id = "fix"',
        'instruction = "Fix it."',
        '',
        '[subtask.artifact_ref]',
        'pr = 7',
        '',
        '[subtask.caveat_policy]',
        'fs_read = "all"',
        'net = "none"',
        'max_calls = 3',
        '',
        '[[subtask]]',
        'id = "docs"',
        'instruction = "Docs."',
        'deps = [ "fix" ]',
        'parallel_ok = true',
        'status = "done"',
        '',
      ].join('\n'),
    );
  });

  it('writes an empty plan as an empty document', () => {
    expect(stringifyPlan({ aggregation: 'concat', subtask: [] })).toBe('');
  });

  it('round-trips every fixture', () => {
    for (const file of ['valid/diamond.toml', 'valid/tree.toml', 'valid/fragment.toml']) {
      const plan = parsePlanToml(readPlanFixture(file));
      expect(parsePlanToml(stringifyPlan(plan))).toEqual(plan);
    }
  });
});

const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.constantFrom('', ' ', 'multi\nline\n', 'quote " and \\ backslash', '"""', "'''", '\t\r\n'),
);
const optional = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> =>
  fc.option(arb, { nil: undefined });
const scope: fc.Arbitrary<Scope> = fc.oneof(
  fc.constant('all' as const),
  fc.array(text, { maxLength: 3 }),
);
const policy: fc.Arbitrary<CaveatPolicy> = fc.record(
  {
    fs_read: scope,
    fs_write: scope,
    exec: scope,
    net: scope,
    max_calls: fc.oneof(fc.constant('unlimited' as const), fc.nat()),
  },
  { requiredKeys: [] },
);
const subtask: fc.Arbitrary<Subtask> = fc
  .record({
    id: text,
    instruction: text,
    deps: fc.array(text, { maxLength: 3 }),
    parallel_ok: fc.boolean(),
    context: fc.array(text, { maxLength: 3 }),
    verify: optional(text),
    status: fc.constantFrom(...SUBTASK_STATUSES),
    result: optional(text),
    parent: optional(text),
    kind: fc.constantFrom(...NODE_KINDS),
    conversation_id: optional(text),
    artifact_ref: optional(
      fc.record(
        {
          branch: text,
          commit: text,
          pr: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
          issue: fc.integer({ min: 1, max: 1_000_000 }),
        },
        { requiredKeys: [] },
      ),
    ),
    caveat_policy: policy,
  })
  .map(dropUndefined);
const plan: fc.Arbitrary<Plan> = fc
  .record({
    goal: optional(text),
    aggregation: fc.constantFrom(...AGGREGATIONS),
    subtask: fc.array(subtask, { maxLength: 5 }),
  })
  .map(dropUndefined);

/** Optional fields are absent, not `undefined`, in a parsed plan. */
function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

describe('TOML round-trip properties', () => {
  it('parse(stringify(p)) equals p', () => {
    fc.assert(
      fc.property(plan, (p) => {
        expect(parsePlanToml(stringifyPlan(p))).toEqual(p);
      }),
      { numRuns: 300 },
    );
  });

  it('stringify is canonical: writing a parsed plan again gives the same text', () => {
    fc.assert(
      fc.property(plan, (p) => {
        const once = stringifyPlan(p);
        expect(stringifyPlan(parsePlanToml(once))).toBe(once);
      }),
    );
  });
});
