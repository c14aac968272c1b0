import { parse as parseToml } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { formatIssues } from '../../../src/protocol/index.js';
import {
  PolicyRuleSchema,
  PolicyRulesSchema,
  evaluatePolicy,
} from '../../../src/authority/policy/index.js';

describe('policy rules as written in config', () => {
  it('reads the documented TOML example', () => {
    const toml = `
[[security.policies]]
match = { tool = "exec", args = [{ path = "command", equals = "npm test" }] }
action = "allow"

[[security.policies]]
match = { tool = "exec" }
action = "deny"
reason = "only npm test may run"

[[security.policies]]
match = { tool = "github.create_issue", caller = ["subagent", "plan"] }
action = "ask"
question = "Let the agent open an issue?"
timeout_ms = 300000
`;
    const config = parseToml(toml) as { security: { policies: unknown } };
    const rules = PolicyRulesSchema.parse(config.security.policies);
    expect(rules).toHaveLength(3);
    expect(rules[2]).toEqual({
      match: { tool: 'github.create_issue', caller: ['subagent', 'plan'] },
      action: 'ask',
      question: 'Let the agent open an issue?',
      timeout_ms: 300000,
      on_timeout: 'deny',
    });
    const call = { tool: 'exec', tags: [], caller: 'root' as const };
    expect(evaluatePolicy(rules, { ...call, args: { command: 'npm test' } }).action).toBe('allow');
    expect(evaluatePolicy(rules, { ...call, args: { command: 'rm -rf /' } })).toMatchObject({
      action: 'deny',
      reason: 'policy rule [1] (deny): only npm test may run',
    });
  });

  it('a rule without `match` matches every call', () => {
    expect(PolicyRuleSchema.parse({ action: 'deny' }).match).toEqual({});
  });

  it.each<[string, unknown, RegExp]>([
    [
      'an unknown action',
      { action: 'maybe' },
      /`action`: expected one of "allow" \| "deny" \| "ask", got "maybe"|`action`/,
    ],
    ['a misspelt key', { action: 'deny', mtach: {} }, /unknown field `mtach`/],
    ['a misspelt condition', { match: { tools: 'exec' }, action: 'deny' }, /unknown field `tools`/],
    [
      'a `*` inside a tool pattern',
      { match: { tool: 'git*.x' }, action: 'deny' },
      /a `\*` only at the end/,
    ],
    ['an unknown tag', { match: { tags: ['secret'] }, action: 'deny' }, /`match.tags\[0\]`/],
    [
      'an unknown caller',
      { match: { caller: ['workflow'] }, action: 'deny' },
      /`match.caller\[0\]`/,
    ],
    [
      'a predicate with two operators',
      { match: { args: [{ path: 'a', equals: 1, prefix: 'x' }] }, action: 'deny' },
      /expected exactly one of .*got `equals` and `prefix`/,
    ],
    [
      'a predicate with no operator',
      { match: { args: [{ path: 'a' }] }, action: 'deny' },
      /expected exactly one of .*got none/,
    ],
    [
      'an invalid regex',
      { match: { args: [{ path: 'a', matches: '(' }] }, action: 'deny' },
      /expected a valid regular expression/,
    ],
    [
      'a regex that escapes its anchors',
      { match: { args: [{ path: 'a', matches: 'a)|(.*' }] }, action: 'deny' },
      /expected a valid regular expression/,
    ],
    [
      'an overlong regex',
      { match: { args: [{ path: 'a', matches: 'a'.repeat(300) }] }, action: 'deny' },
      /at most 256 characters/,
    ],
    [
      'a zero timeout',
      { action: 'ask', timeout_ms: 0 },
      /`timeout_ms`: expected a positive integer/,
    ],
  ])('refuses %s when the config is loaded', (_what, raw, message) => {
    const parsed = PolicyRuleSchema.safeParse(raw);
    expect(parsed.success).toBe(false);
    if (!parsed.success) expect(formatIssues(parsed.error.issues)).toMatch(message);
  });
});
