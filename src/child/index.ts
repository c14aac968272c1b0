export { runChild, type ChildDeps, type ChildIo } from './run-child.js';
export { childV8Flags, setChildV8FlagsAtFirstFetch } from './v8-flags.js';
export { CHILD_POOLED_ENV, CHILD_WAITING_MSG } from './pool-signals.js';
export { rehearseSpawn } from './rehearse.js';
export { warmHttp } from './warm-http.js';
