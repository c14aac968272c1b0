import { describe, expect, it } from 'vitest';
import type { JsonObject, TrifectaTag } from '../../../src/protocol/index.js';
import {
  PolicyRulesSchema,
  evaluatePolicy,
  type CallerKind,
  type PolicyCall,
} from '../../../src/authority/policy/index.js';

const rules = (raw: unknown) => PolicyRulesSchema.parse(raw);

const call = (
  tool: string,
  args: JsonObject = {},
  caller: CallerKind = 'subagent',
  tags: TrifectaTag[] = [],
): PolicyCall => ({ tool, args, caller, tags });

describe('evaluatePolicy: order and defaults', () => {
  it('allows with no rule when nothing matches (and for an empty list)', () => {
    expect(evaluatePolicy([], call('exec'))).toEqual({
      action: 'allow',
      ruleIndex: undefined,
      reason: 'no policy rule matched',
      failedClosed: false,
    });
    const verdict = evaluatePolicy(
      rules([{ match: { tool: 'fs.*' }, action: 'deny' }]),
      call('exec'),
    );
    expect(verdict.ruleIndex).toBeUndefined();
    expect(verdict.action).toBe('allow');
  });

  it('lets the first matching rule decide and carries its index', () => {
    const list = rules([
      { match: { tool: 'fs.read' }, action: 'allow' },
      { match: { tool: 'exec' }, action: 'ask', question: 'Run it?' },
      { match: { tool: '*' }, action: 'deny', reason: 'nothing else' },
    ]);
    const ask = evaluatePolicy(list, call('exec'));
    expect(ask).toMatchObject({ action: 'ask', ruleIndex: 1, failedClosed: false });
    expect(ask.rule?.question).toBe('Run it?');
    expect(ask.rule?.on_timeout).toBe('deny');
    expect(evaluatePolicy(list, call('fs.write'))).toMatchObject({
      action: 'deny',
      ruleIndex: 2,
      reason: 'policy rule [2] (deny): nothing else',
    });
  });

  it('an allow placed before a broad deny is an exception to it', () => {
    const list = rules([
      { match: { tool: 'exec', args: [{ path: 'command', equals: 'npm test' }] }, action: 'allow' },
      { match: { tool: 'exec' }, action: 'deny' },
    ]);
    expect(evaluatePolicy(list, call('exec', { command: 'npm test' }))).toMatchObject({
      action: 'allow',
      ruleIndex: 0,
    });
    expect(evaluatePolicy(list, call('exec', { command: 'npm test; curl x' }))).toMatchObject({
      action: 'deny',
      ruleIndex: 1,
    });
    // Reversed, the broad deny shadows the exception.
    const reversed = [list[1]!, list[0]!];
    expect(evaluatePolicy(reversed, call('exec', { command: 'npm test' })).action).toBe('deny');
  });
});

describe('evaluatePolicy: conditions', () => {
  it.each<[TrifectaTag[], boolean]>([
    [['untrusted_input', 'egress'], true],
    [['untrusted_input', 'egress', 'sensitive'], true],
    [['untrusted_input'], false],
    [['egress'], false],
    [[], false],
  ])('tags are all required: a server tagged %j matches=%s', (tags, matches) => {
    const list = rules([{ match: { tags: ['untrusted_input', 'egress'] }, action: 'deny' }]);
    expect(evaluatePolicy(list, call('web.fetch', {}, 'root', tags)).action).toBe(
      matches ? 'deny' : 'allow',
    );
  });

  it.each<[CallerKind, boolean]>([
    ['subagent', true],
    ['plan', true],
    ['root', false],
  ])('caller filter: %s matches=%s', (caller, matches) => {
    const list = rules([{ match: { tool: 'exec', caller: ['subagent', 'plan'] }, action: 'deny' }]);
    expect(evaluatePolicy(list, call('exec', {}, caller)).action).toBe(matches ? 'deny' : 'allow');
  });

  it.each([
    ['exec', true],
    ['exec2', false],
    ['github.create_issue', false],
  ])('an exact tool pattern matches only `exec`: %s → %s', (tool, matches) => {
    const list = rules([{ match: { tool: 'exec' }, action: 'deny' }]);
    expect(evaluatePolicy(list, call(tool)).action).toBe(matches ? 'deny' : 'allow');
  });

  it('conditions are ANDed', () => {
    const list = rules([
      {
        match: {
          tool: 'github.*',
          tags: ['egress'],
          caller: ['subagent'],
          args: [{ path: 'repo', prefix: 'acme/' }],
        },
        action: 'deny',
      },
    ]);
    const hit = call('github.create_issue', { repo: 'acme/app' }, 'subagent', ['egress']);
    expect(evaluatePolicy(list, hit).action).toBe('deny');
    expect(evaluatePolicy(list, { ...hit, tool: 'gitlab.x' }).action).toBe('allow');
    expect(evaluatePolicy(list, { ...hit, tags: [] }).action).toBe('allow');
    expect(evaluatePolicy(list, { ...hit, caller: 'root' }).action).toBe('allow');
    expect(evaluatePolicy(list, { ...hit, args: { repo: 'other/app' } }).action).toBe('allow');
  });
});

describe('argument predicates', () => {
  const args: JsonObject = {
    command: 'npm run lint',
    count: 3,
    force: true,
    nothing: null,
    options: { 'dotted.key': 'x', nested: { depth: 2 } },
    files: [{ path: 'src/a.ts' }, { path: 'docs/b.md' }],
  };

  it.each<[string, unknown, boolean]>([
    ['equals a string', { path: 'command', equals: 'npm run lint' }, true],
    ['equals a string (no)', { path: 'command', equals: 'npm run' }, false],
    ['equals a number', { path: 'count', equals: 3 }, true],
    ['equals a boolean', { path: 'force', equals: true }, true],
    ['equals null', { path: 'nothing', equals: null }, true],
    ['equals does not convert types', { path: 'count', equals: '3' }, false],
    ['in', { path: 'command', in: ['npm test', 'npm run lint'] }, true],
    ['in (no)', { path: 'command', in: ['npm test'] }, false],
    ['prefix', { path: 'command', prefix: 'npm ' }, true],
    ['prefix (no)', { path: 'command', prefix: 'yarn ' }, false],
    ['suffix', { path: 'files.1.path', suffix: '.md' }, true],
    ['matches the whole value', { path: 'command', matches: 'npm (test|run lint)' }, true],
    ['matches is anchored at both ends', { path: 'command', matches: 'npm run' }, false],
    ['matches is anchored against alternation', { path: 'command', matches: 'x|npm run' }, false],
    ['a dotted path into arrays and objects', { path: 'options.nested.depth', equals: 2 }, true],
    ['a list path for keys with dots', { path: ['options', 'dotted.key'], equals: 'x' }, true],
    ['exists', { path: 'force', exists: true }, true],
    ['exists (absent)', { path: 'missing', exists: true }, false],
    ['exists false on an absent argument', { path: 'missing', exists: false }, true],
    ['exists looks at own keys only', { path: 'constructor', exists: true }, false],
  ])('%s', (_what, predicate, holds) => {
    const list = rules([{ match: { args: [predicate] }, action: 'deny' }]);
    expect(evaluatePolicy(list, call('t', args)).action).toBe(holds ? 'deny' : 'allow');
  });

  it.each<[string, unknown, string]>([
    ['a missing argument', { path: 'nope', equals: 'x' }, 'argument `nope` is missing'],
    [
      'an index past the end',
      { path: 'files.5.path', prefix: 'src' },
      'argument `files.5.path` is missing',
    ],
    [
      'a path through a string',
      { path: 'command.length', equals: 12 },
      'argument `command.length` is missing',
    ],
    ['a prototype key', { path: '__proto__', equals: null }, 'argument `__proto__` is missing'],
    [
      'prefix on a number',
      { path: 'count', prefix: '3' },
      'argument `count`: expected a string, got a number',
    ],
    [
      'matches on an object',
      { path: 'options', matches: '.*' },
      'argument `options`: expected a string, got an object',
    ],
    [
      'equals on an array',
      { path: 'files', equals: 'x' },
      'argument `files`: expected a string, number, boolean or null, got an array',
    ],
  ])('fails closed on %s: deny, with the rule index and the reason', (_what, predicate, why) => {
    // Even an allow rule that cannot be evaluated refuses: an unevaluable guard is no permission.
    const list = rules([
      { match: { tool: 'other' }, action: 'deny' },
      { match: { args: [predicate] }, action: 'allow' },
    ]);
    expect(evaluatePolicy(list, call('t', args))).toEqual({
      action: 'deny',
      ruleIndex: 1,
      rule: list[1],
      reason: `policy rule [1] could not be evaluated (${why}), so the call is refused`,
      failedClosed: true,
    });
  });

  it('fails closed when a value is too long to match safely', () => {
    const list = rules([{ match: { args: [{ path: 'q', matches: '(a+)+b' }] }, action: 'allow' }]);
    const verdict = evaluatePolicy(list, call('t', { q: 'a'.repeat(5000) }));
    expect(verdict).toMatchObject({ action: 'deny', ruleIndex: 0, failedClosed: true });
    expect(verdict.reason).toMatch(/expected at most 4096 characters to match against/);
  });

  it('stops at the first predicate that does not hold, so `exists` can guard an optional one', () => {
    const list = rules([
      {
        match: {
          args: [
            { path: 'mode', exists: true },
            { path: 'mode', equals: 'force' },
          ],
        },
        action: 'deny',
      },
    ]);
    expect(evaluatePolicy(list, call('t', {}))).toMatchObject({
      action: 'allow',
      failedClosed: false,
    });
    expect(evaluatePolicy(list, call('t', { mode: 'force' })).action).toBe('deny');
  });
});

describe('conditions on what the caller has done', () => {
  const list = rules([
    { match: { tool: 'http.fetch', exposed: true, sensitive: true }, action: 'ask' },
    { match: { tool: 'exec', min_risk: 0.5 }, action: 'deny' },
  ]);
  const state = (exposed: boolean, sensitive: boolean, risk: number) => ({
    exposed,
    sensitive,
    risk,
  });

  it.each([
    ['http.fetch', state(true, true, 0), 'ask'],
    ['http.fetch', state(true, false, 0), 'allow'],
    ['exec', state(false, false, 0.5), 'deny'],
    ['exec', state(false, false, 0.49), 'allow'],
  ] as const)('%s with %j → %s', (tool, now, action) => {
    expect(evaluatePolicy(list, { ...call(tool), state: now }).action).toBe(action);
  });

  it('counts a caller that has not reported as clean', () => {
    expect(evaluatePolicy(list, call('exec')).action).toBe('allow');
  });

  it('refuses a risk outside 0–1 when the config is read', () => {
    expect(() => rules([{ match: { min_risk: 2 }, action: 'deny' }])).toThrow();
  });
});
