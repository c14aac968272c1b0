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
export { meetToolGrants, narrowServers, patternWithin, peersFor } from './narrowing.js';
export {
  canonicalPath,
  isInside,
  meetPathScopes,
  normalizePath,
  pathScopeLeq,
  permitsPath,
  resolveInside,
  resolveReal,
} from './path-scope.js';
export {
  formatNetEntry,
  grantsNet,
  meetNetScopes,
  namedHosts,
  parseNetEntry,
  permitsNet,
  type NetEntry,
} from './net-scope.js';
export { credentialsFor, narrowNetCredentials } from './net-credentials.js';
export { STATE_DIR, protectionOf, runStatePaths } from './protected-paths.js';
export { defaultRunGrant } from './run-grant.js';
export {
  CHILD_RISK_DAMPING,
  RISK_DECAY_PER_STEP,
  Trajectory,
  childSeed,
  egressHold,
  inheritedTrajectory,
  knownTrajectory,
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
export { checkTrifecta, effectiveServerTags } from './trifecta.js';
