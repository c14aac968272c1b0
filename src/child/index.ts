export { CHILD_EXIT, runChild, type ChildDeps, type ChildIo } from './run-child.js';
export { setChildV8Flags } from './v8-flags.js';
export { CHILD_POOLED_ENV, warmFetch } from './warm-fetch.js';
export { warmUp } from './warm-up.js';
