export {
  EXEC_TRIFECTA_TAGS,
  HTTP_FETCH_TAGS,
  checkTrifecta,
  execTrifectaTags,
  effectiveServerTags,
} from './check-trifecta.js';
export { couldApply, gatedTools } from './could-apply.js';
export { evaluatePolicy, type PolicyCall } from './evaluate-policy.js';
export {
  PolicyRuleSchema,
  PolicyRulesSchema,
  ToolPatternSchema,
  type CallerKind,
  type PolicyRule,
} from './policy-rule.js';
