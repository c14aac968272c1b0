export {
  inLane,
  isInside,
  meetPathScopes,
  normalizePath,
  pathScopeLeq,
  permitsPath,
  resolveInside,
  type PathContext,
  type PathResolution,
} from './path-scope.js';
