import type { McpServerSpec, TrifectaTag } from '../../protocol/index.js';
import { effectiveServerTags } from '../trifecta.js';
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

/**
 * Could any rule touch some tool of this server, for this caller? Without listing its tools: a
 * rule's tool pattern could match a name of the form `<server>.<tool>` (`*`, a prefix pattern
 * compatible with `<server>.`, or an exact name under it), its tags are among the server's, and
 * its caller kinds include this one.
 */
export function serverCouldBeGated(
  rules: readonly PolicyRule[],
  server: McpServerSpec,
  caller: CallerKind,
): boolean {
  const prefix = `${server.name}.`;
  const tags = effectiveServerTags(server.tags);
  return rules.some(({ match }) => {
    if (match.caller !== undefined && !match.caller.includes(caller)) return false;
    if (match.tags !== undefined && !match.tags.every((tag) => tags.includes(tag))) return false;
    const pattern = match.tool;
    if (pattern === undefined || pattern === '*') return true;
    if (pattern.endsWith('*')) {
      const head = pattern.slice(0, -1);
      return head.startsWith(prefix) || prefix.startsWith(head);
    }
    return pattern.startsWith(prefix);
  });
}
