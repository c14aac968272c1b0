import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonObject, TrifectaTag } from '../../../src/protocol/index.js';
import {
  PolicyRulesSchema,
  couldApply,
  evaluatePolicy,
  gatedTools,
  type CallerKind,
  type PolicyRule,
} from '../../../src/authority/policy/index.js';

const rules = (raw: unknown) => PolicyRulesSchema.parse(raw);

describe('couldApply', () => {
  it.each<[string, boolean, unknown]>([
    ['no rules', false, []],
    ['a rule for another tool', false, [{ match: { tool: 'fs.*' }, action: 'deny' }]],
    ['a rule for this tool', true, [{ match: { tool: 'exec' }, action: 'deny' }]],
    ['a catch-all rule', true, [{ action: 'ask' }]],
    [
      'an allow rule (a decision to record too)',
      true,
      [{ match: { tool: 'exec' }, action: 'allow' }],
    ],
    [
      'a rule depending on arguments (conservative: might)',
      true,
      [
        {
          match: { tool: 'exec', args: [{ path: 'command', equals: 'never sent' }] },
          action: 'deny',
        },
      ],
    ],
    ['a rule for another caller kind', false, [{ match: { caller: ['root'] }, action: 'deny' }]],
    [
      'a rule needing a tag the server lacks',
      false,
      [{ match: { tags: ['sensitive'] }, action: 'deny' }],
    ],
  ])('%s → %s', (_what, expected, raw) => {
    expect(couldApply(rules(raw), { tool: 'exec', tags: ['egress'], caller: 'subagent' })).toBe(
      expected,
    );
  });
});

describe('gatedTools', () => {
  const list = rules([
    { match: { tool: 'github.create_issue' }, action: 'ask' },
    { match: { tags: ['sensitive', 'egress'] }, action: 'deny' },
    { match: { tool: 'fs.write', caller: ['plan'] }, action: 'deny' },
  ]);
  const tools = [
    { name: 'github.create_issue', tags: [] },
    { name: 'github.list_issues', tags: [] },
    { name: 'exec', tags: ['sensitive', 'egress'] as TrifectaTag[] },
    { name: 'fs.write', tags: [] },
    { name: 'fs.read', tags: [] },
  ];

  it.each<[CallerKind, string[]]>([
    ['subagent', ['github.create_issue', 'exec']],
    ['plan', ['github.create_issue', 'exec', 'fs.write']],
  ])('for a %s: %j', (caller, names) => {
    expect(gatedTools(list, tools, caller)).toEqual(names);
  });
});

describe('gating is sound (property)', () => {
  const tool = fc.constantFrom(
    'exec',
    'fs.read',
    'fs.write',
    'github.create_issue',
    'github.x',
    'web.fetch',
  );
  const tag = fc.constantFrom<TrifectaTag>('untrusted_input', 'sensitive', 'egress');
  const caller = fc.constantFrom<CallerKind>('root', 'subagent', 'plan');
  const argPath = fc.constantFrom('command', 'repo', 'n', 'nested.x', 'list.0');
  const predicate = fc.oneof(
    fc.record({
      path: argPath,
      equals: fc.oneof(fc.string({ maxLength: 3 }), fc.integer(), fc.constant(null)),
    }),
    fc.record({ path: argPath, prefix: fc.string({ maxLength: 2 }) }),
    fc.record({ path: argPath, matches: fc.constantFrom('a.*', 'npm test', '[0-9]+') }),
    fc.record({
      path: argPath,
      in: fc.array(fc.string({ maxLength: 2 }), { minLength: 1, maxLength: 3 }),
    }),
    fc.record({ path: argPath, exists: fc.boolean() }),
  );
  const rule: fc.Arbitrary<PolicyRule> = fc
    .record(
      {
        match: fc.record(
          {
            tool: fc.constantFrom(
              '*',
              'exec',
              'fs.*',
              'github.*',
              'github.create_issue',
              'web.fetch',
            ),
            tags: fc.uniqueArray(tag, { minLength: 1, maxLength: 3 }),
            caller: fc.uniqueArray(caller, { minLength: 1, maxLength: 3 }),
            args: fc.array(predicate, { minLength: 1, maxLength: 3 }),
          },
          { requiredKeys: [] },
        ),
        action: fc.constantFrom('allow', 'deny', 'ask'),
      },
      { requiredKeys: ['match', 'action'] },
    )
    .map((raw) => PolicyRulesSchema.parse([raw])[0]!);
  const args: fc.Arbitrary<JsonObject> = fc.record(
    {
      command: fc.oneof(fc.string({ maxLength: 4 }), fc.integer()),
      repo: fc.string({ maxLength: 4 }),
      n: fc.integer(),
      nested: fc.oneof(fc.record({ x: fc.string({ maxLength: 2 }) }), fc.string()),
      list: fc.array(fc.string({ maxLength: 2 }), { maxLength: 2 }),
    },
    { requiredKeys: [] },
  );

  it('couldApply false ⇒ evaluatePolicy allows with no rule, for every argument', () => {
    fc.assert(
      fc.property(
        fc.array(rule, { maxLength: 6 }),
        tool,
        fc.uniqueArray(tag, { maxLength: 3 }),
        caller,
        args,
        (list, name, tags, who, callArgs) => {
          if (couldApply(list, { tool: name, tags, caller: who })) return;
          const verdict = evaluatePolicy(list, { tool: name, tags, caller: who, args: callArgs });
          expect(verdict.action).toBe('allow');
          expect(verdict.ruleIndex).toBeUndefined();
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('and conversely a matched rule always means couldApply was true', () => {
    fc.assert(
      fc.property(
        fc.array(rule, { maxLength: 6 }),
        tool,
        fc.uniqueArray(tag),
        caller,
        args,
        (list, name, tags, who, callArgs) => {
          const verdict = evaluatePolicy(list, { tool: name, tags, caller: who, args: callArgs });
          if (verdict.ruleIndex !== undefined) {
            expect(couldApply(list, { tool: name, tags, caller: who })).toBe(true);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });
});
