export { CaveatPolicySchema, policyToCaveats, type CaveatPolicy } from './caveat-policy.js';
export {
  bottomCaveats,
  caveatsEqual,
  caveatsLeq,
  countLeq,
  countMeet,
  meetCaveats,
  permitsExec,
  permitsNet,
  scopeEquals,
  scopeLeq,
  scopeMeet,
  topCaveats,
} from './caveats-lattice.js';
export { leafCaveats, withWriteLane, type LeafAuthority } from './leaf-caveats.js';
export { meetToolGrants, narrowServers, patternWithin } from './narrowing.js';
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
export { defaultRunGrant } from './run-grant.js';
export {
  allowedTools,
  conversationSeed,
  isToolAllowed,
  matchesToolPattern,
  narrowTools,
  stripAllowList,
} from './tool-grant.js';
