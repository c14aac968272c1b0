export { bwrapArgs } from './bwrap-args.js';
export { nodeFsView, type FsView } from './fs-view.js';
export { SANDBOX_HINT, prepareCommand } from './prepare-command.js';
export { sweepPlantedPointers } from './sweep-git-pointers.js';
export { gitDirPointer, outermostGitDir } from './git-launchers.js';
export { probeSandbox } from './probe-sandbox.js';
export {
  locateTrustedBinary,
  operatorSetting,
  trustProblem,
  type TrustContext,
} from './trusted-binary.js';
export {
  planMounts,
  toolchainRoot,
  type Mount,
  type MountPlan,
  type SandboxSpec,
} from './sandbox-mounts.js';
export { withSealedStdio } from './inherited-fds.js';
export { runFile, type FileRun } from './run-file.js';
