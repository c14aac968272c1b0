import type { TrifectaTag } from '../../protocol/index.js';
import { matchesStatic } from './evaluate-policy.js';
import type { CallerKind, PolicyRule } from './policy-rule.js';

/**
 * Might any rule touch calls of `tool` by this kind of caller? Conservative: a rule whose tool,
 * tags and caller match counts whatever its argument predicates say, and whatever its action (an
 * `allow` that matches is still a decision to record). When this is false, `evaluatePolicy`
 * returns allow with no rule for every possible argument, so the call need not be gated.
 */
export function couldApply(
  rules: readonly PolicyRule[],
  call: { tool: string; tags: readonly TrifectaTag[]; caller: CallerKind },
): boolean {
  return rules.some((rule) => matchesStatic(rule.match, call));
}

/**
 * The tools a child must send up as `tool_request` (the payload's `gated_tools`): those some
 * rule might touch for its caller kind. The supervisor evaluates the policy when each request
 * arrives, so a child that ignores this list is refused all the same.
 */
export function gatedTools(
  rules: readonly PolicyRule[],
  tools: readonly { name: string; tags: readonly TrifectaTag[] }[],
  caller: CallerKind,
): string[] {
  return tools
    .filter((tool) => couldApply(rules, { tool: tool.name, tags: tool.tags, caller }))
    .map((tool) => tool.name);
}
