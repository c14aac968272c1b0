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
export { leafCaveats, withWriteLane } from './leaf-caveats.js';
export { completeRequest, meetGrant } from './meet-grant.js';
export { meetToolGrants, narrowServers, patternWithin } from './narrowing.js';
export {
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
