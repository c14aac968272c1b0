import { type JsonObject, type TrifectaTag } from '../../protocol/index.js';
import { evaluatePredicate } from './arg-predicate.js';
import type { CallerKind, PolicyAction, PolicyMatch, PolicyRule } from './policy-rule.js';
import { matchesToolPattern } from '../tool-grant.js';

/** The call a policy is asked about. */
export interface PolicyCall {
  /** The tool's arbor name. */
  tool: string;
  /** Trifecta tags of the tool's source (see `effectiveServerTags` and `execTrifectaTags`). */
  tags: readonly TrifectaTag[];
  caller: CallerKind;
  /** The arguments, already validated against the tool's schema. */
  args: JsonObject;
  /** What the calling node has done (its latest trajectory report); absent counts as clean. */
  state?: { exposed: boolean; sensitive: boolean; risk: number } | undefined;
}

/** A policy decision, with the rule that made it for the event log and audit. */
export interface PolicyVerdict {
  action: PolicyAction;
  /** 0-based index of the deciding rule; `undefined` when no rule matched (allow by default). */
  ruleIndex: number | undefined;
  rule?: PolicyRule;
  /** Why, in words for the log and for a refused model. */
  reason: string;
  /** A predicate could not be evaluated, so the rule refused the call whatever its action. */
  failedClosed: boolean;
}

/**
 * Evaluates `security.policies` for one call: the first rule whose conditions all hold decides;
 * no matching rule means allow, so an empty list changes nothing. An explicit `allow` stops the
 * scan, which is how an exception is written before a broad `deny`. A rule whose argument
 * predicate cannot be evaluated (a missing argument, a value of the wrong type) fails closed:
 * the call is denied by that rule, never treated as "no match".
 */
export function evaluatePolicy(rules: readonly PolicyRule[], call: PolicyCall): PolicyVerdict {
  for (const [index, rule] of rules.entries()) {
    if (!matchesStatic(rule.match, call) || !matchesState(rule.match, call.state)) continue;
    const outcome = argsHold(rule.match, call.args);
    if (outcome === false) continue;
    if (typeof outcome === 'string') {
      return {
        action: 'deny',
        ruleIndex: index,
        rule,
        reason: `policy rule [${index}] could not be evaluated (${outcome}), so the call is refused`,
        failedClosed: true,
      };
    }
    return {
      action: rule.action,
      ruleIndex: index,
      rule,
      reason: `policy rule [${index}] (${rule.action})${rule.reason === undefined ? '' : `: ${rule.reason}`}`,
      failedClosed: false,
    };
  }
  return {
    action: 'allow',
    ruleIndex: undefined,
    reason: 'no policy rule matched',
    failedClosed: false,
  };
}

/**
 * The conditions that do not depend on arguments: tool pattern, tags (all required) and caller
 * kind. `couldApply` uses exactly this, which is what makes gating sound.
 */
export function matchesStatic(
  match: PolicyMatch,
  call: Pick<PolicyCall, 'tool' | 'tags' | 'caller'>,
): boolean {
  if (match.tool !== undefined && !matchesToolPattern(call.tool, match.tool)) return false;
  if (match.tags !== undefined && !match.tags.every((tag) => call.tags.includes(tag))) return false;
  if (match.caller !== undefined && !match.caller.includes(call.caller)) return false;
  return true;
}

/**
 * The conditions on what the caller has done: `exposed`, `sensitive`, `min_risk`. They change as a
 * node runs, so `couldApply` counts a rule with them as one that may apply, and gates the tool.
 */
function matchesState(match: PolicyMatch, state: PolicyCall['state']): boolean {
  const now = state ?? { exposed: false, sensitive: false, risk: 0 };
  if (match.exposed !== undefined && now.exposed !== match.exposed) return false;
  if (match.sensitive !== undefined && now.sensitive !== match.sensitive) return false;
  if (match.min_risk !== undefined && now.risk < match.min_risk) return false;
  return true;
}

/** `true` when every predicate holds, `false` when one does not, or why one cannot be evaluated. */
function argsHold(match: PolicyMatch, args: JsonObject): boolean | string {
  // In order, stopping at the first that does not hold: `{exists: true}` can guard a later
  // predicate on an optional argument.
  for (const predicate of match.args ?? []) {
    const result = evaluatePredicate(predicate, args);
    if (!result.ok) return result.reason;
    if (!result.holds) return false;
  }
  return true;
}
