export { arborCacheDir, arborConfigDir, arborStateDir } from './arbor-dirs.js';
export { CaveatPolicySchema, policyToCaveats, type CaveatPolicy } from './caveat-policy.js';
export {
  bottomCaveats,
  caveatsEqual,
  caveatsLeq,
  countLeq,
  countMeet,
  meetCaveats,
  permitsExec,
  scopeEquals,
  scopeLeq,
  scopeMeet,
  topCaveats,
} from './caveats-lattice.js';
export { handedDownContext } from './handed-context.js';
export { leafCaveats, withWriteLane } from './leaf-caveats.js';
export { completeRequest, meetGrant } from './meet-grant.js';
export {
  meetToolGrants,
  narrowPeers,
  narrowServers,
  patternWithin,
  peersFor,
} from './narrowing.js';
export {
  canonicalPath,
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
  entryWithin,
  formatNetEntry,
  grantsNet,
  meetNetScopes,
  namedHosts,
  normalizeHost,
  parseNetEntry,
  permitsNet,
  type NetDecision,
  type NetEntry,
} from './net-scope.js';
export {
  ArgPredicateSchema,
  CallerKindSchema,
  MAX_MATCH_INPUT_CHARS,
  MAX_PATTERN_CHARS,
  PolicyActionSchema,
  PolicyMatchSchema,
  PolicyRuleSchema,
  PolicyRulesSchema,
  ToolPatternSchema,
  couldApply,
  evaluatePolicy,
  evaluatePredicate,
  gatedTools,
  matchesStatic,
  serverCouldBeGated,
  type ArgPredicate,
  type CallerKind,
  type PolicyAction,
  type PolicyCall,
  type PolicyMatch,
  type PolicyRule,
  type PolicyVerdict,
  type PredicateResult,
} from './policy/index.js';
export { STATE_DIR, protectionOf, runStatePaths, type RunStateOptions } from './protected-paths.js';
export { defaultRunGrant } from './run-grant.js';
export {
  CHILD_RISK_DAMPING,
  RISK_DECAY_PER_STEP,
  RISK_WEIGHTS,
  Trajectory,
  childSeed,
  egressHold,
  inheritedTrajectory,
  knownTrajectory,
  type TrajectorySeed,
  type TrajectorySignal,
} from './trajectory.js';
export {
  allowedTools,
  conversationSeed,
  isToolAllowed,
  matchesToolPattern,
  narrowTools,
  stripAllowList,
} from './tool-grant.js';
export { toolProfiles, type ToolLookup } from './tool-profiles.js';
export {
  commandsHaveNetwork,
  countedAtSpawn,
  isEgressCall,
  profileOf,
  type ToolProfile,
  type ToolTrifecta,
} from './tool-trifecta.js';
export {
  checkTrifecta,
  effectiveServerTags,
  runtimeServerTags,
  type TaggedSource,
  type TrifectaCheck,
  type TrifectaLegs,
  type TrifectaOptions,
} from './trifecta.js';
