export { couldApply, gatedTools, serverCouldBeGated } from './could-apply.js';
export { evaluatePolicy, type PolicyCall } from './evaluate-policy.js';
export {
  PolicyRuleSchema,
  PolicyRulesSchema,
  ToolPatternSchema,
  type CallerKind,
  type PolicyRule,
} from './policy-rule.js';
