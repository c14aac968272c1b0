export {
  ArgPredicateSchema,
  MAX_MATCH_INPUT_CHARS,
  MAX_PATTERN_CHARS,
  evaluatePredicate,
  type ArgPredicate,
  type PredicateResult,
} from './arg-predicate.js';
export {
  EXEC_OFFLINE_TAGS,
  EXEC_TRIFECTA_TAGS,
  HTTP_FETCH_TAGS,
  checkTrifecta,
  execTrifectaTags,
  effectiveServerTags,
  type TrifectaCheck,
  type TrifectaLegs,
  type TrifectaOptions,
} from './check-trifecta.js';
export { couldApply, gatedTools } from './could-apply.js';
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
