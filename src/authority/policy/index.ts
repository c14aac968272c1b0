export {
  ArgPredicateSchema,
  MAX_MATCH_INPUT_CHARS,
  MAX_PATTERN_CHARS,
  evaluatePredicate,
  type ArgPredicate,
  type PredicateResult,
} from './arg-predicate.js';
export { couldApply, gatedTools, serverCouldBeGated } from './could-apply.js';
export {
  evaluatePolicy,
  matchesStatic,
  type PolicyCall,
  type PolicyVerdict,
} from './evaluate-policy.js';
export {
  CallerKindSchema,
  PolicyActionSchema,
  PolicyMatchSchema,
  PolicyRuleSchema,
  PolicyRulesSchema,
  ToolPatternSchema,
  type CallerKind,
  type PolicyAction,
  type PolicyMatch,
  type PolicyRule,
} from './policy-rule.js';
