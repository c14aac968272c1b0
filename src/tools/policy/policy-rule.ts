import { z } from 'zod';
import { PositiveIntSchema, TrifectaTagSchema } from '../../protocol/index.js';
import { ArgPredicateSchema } from './arg-predicate.js';

/** Who is making a call: the root agent, a delegated subagent, or a plan leaf. */
const CallerKindSchema = z.enum(['root', 'subagent', 'plan']);
export type CallerKind = z.infer<typeof CallerKindSchema>;

/** What a rule does with a call it matches: let it run, refuse it, or ask a human first. */
const PolicyActionSchema = z.enum(['allow', 'deny', 'ask']);
export type PolicyAction = z.infer<typeof PolicyActionSchema>;

/** A tool-name pattern with the allow-list syntax: `*`, an exact name, or `prefix*`. */
export const ToolPatternSchema = z
  .string()
  .min(1)
  .refine((pattern) => !pattern.slice(0, -1).includes('*'), {
    error: 'expected `*`, an exact tool name or a prefix ending in `*` (a `*` only at the end)',
  });

/**
 * When a rule applies. Every condition given must hold (they are ANDed, so adding one only
 * narrows the rule); a rule with no condition matches every call.
 */
const PolicyMatchSchema = z.strictObject({
  /** The tool's arbor name (`exec`, `fs.write`, `github.create_issue`), allow-list syntax. */
  tool: ToolPatternSchema.optional(),
  /** Trifecta tags the tool's server must carry, all of them. */
  tags: z.array(TrifectaTagSchema).min(1).optional(),
  /** The kinds of caller the rule is for; absent means every caller. */
  caller: z.array(CallerKindSchema).min(1).optional(),
  /** Conditions on the call's arguments, checked in order; see `ArgPredicateSchema`. */
  args: z.array(ArgPredicateSchema).min(1).optional(),
  /** The calling node has (`true`) or has not (`false`) read untrusted content. */
  exposed: z.boolean().optional(),
  /** The calling node has (`true`) or has not (`false`) read a sensitive source. */
  sensitive: z.boolean().optional(),
  /** The calling node's risk score (0–1) is at least this. */
  min_risk: z.number().min(0).max(1).optional(),
});
export type PolicyMatch = z.infer<typeof PolicyMatchSchema>;

/**
 * One entry of `security.policies`: an ordered list in which the first matching rule decides.
 * Unknown keys are refused, so a misspelt condition cannot silently widen a rule.
 */
export const PolicyRuleSchema = z.strictObject({
  match: PolicyMatchSchema.default({}),
  action: PolicyActionSchema,
  /** Why the rule exists: recorded with each decision and shown to the model on a refusal. */
  reason: z.string().min(1).optional(),
  /** For `ask`: what the human is asked (default: the tool and its arguments). */
  question: z.string().min(1).optional(),
  /** For `ask`: what an unanswered question means. A gate nobody answered was not approved. */
  on_timeout: z.enum(['deny', 'allow']).default('deny'),
  /** For `ask`: how long to wait for an answer, in milliseconds (default: no limit). */
  timeout_ms: PositiveIntSchema.optional(),
});
export type PolicyRule = z.infer<typeof PolicyRuleSchema>;

/** `security.policies` as written in config. */
export const PolicyRulesSchema = z.array(PolicyRuleSchema);
