export { ArgsValidator, type ArgsCheck } from './args-validator.js';
export {
  DEFAULT_BUILTIN_LIMITS,
  PathGuard,
  builtinTools,
  execEnv,
  runCommand,
  type BuiltinLimits,
  type BuiltinToolsOptions,
  type CommandResult,
  type CommandStop,
  type PathAxis,
  type PathCheck,
  type PathGuardOptions,
  type RunCommandOptions,
} from './builtin/index.js';
export { CallBudget } from './call-budget.js';
export { formatSchemaErrors } from './format-schema-errors.js';
export { indexTools, type IndexedTool, type ToolConflict, type ToolIndex } from './index-tools.js';
export { INTERNAL_TOOLS, SLEEP_TOOL, isInternalTool } from './internal-catalog.js';
export {
  inLane,
  isInside,
  meetPathScopes,
  normalizePath,
  pathScopeLeq,
  permitsPath,
  resolveInside,
  resolveReal,
  type PathContext,
  type PathResolution,
} from './path-scope.js';
export {
  ArgPredicateSchema,
  CallerKindSchema,
  EXEC_TRIFECTA_TAGS,
  MAX_MATCH_INPUT_CHARS,
  MAX_PATTERN_CHARS,
  PolicyActionSchema,
  PolicyMatchSchema,
  PolicyRuleSchema,
  PolicyRulesSchema,
  checkTrifecta,
  couldApply,
  effectiveServerTags,
  evaluatePolicy,
  evaluatePredicate,
  gatedTools,
  matchesStatic,
  type ArgPredicate,
  type CallerKind,
  type PolicyAction,
  type PolicyCall,
  type PolicyMatch,
  type PolicyRule,
  type PolicyVerdict,
  type PredicateResult,
  type TrifectaCheck,
  type TrifectaLegs,
  type TrifectaOptions,
} from './policy/index.js';
export {
  toolError,
  type CallMeta,
  type Tool,
  type ToolCallContext,
  type ToolHost,
  type ToolKind,
  type ToolOutput,
  type ToolSource,
} from './tool.js';
export { ToolRegistry, type ToolRegistryOptions } from './tool-registry.js';
export { ToolSet } from './tool-set.js';
