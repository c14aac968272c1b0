export { CHILD_EXIT, runChild, type ChildDeps, type ChildIo } from './run-child.js';
export { warmUp } from './warm-up.js';
