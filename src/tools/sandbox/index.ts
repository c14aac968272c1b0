export { bwrapArgs } from './bwrap-args.js';
export { nodeFsView, type FsView } from './fs-view.js';
export { SANDBOX_HINT, prepareCommand, type CommandNetwork } from './prepare-command.js';
export { openEgressSession } from './egress-session.js';
export { netBridge } from './net-bridge.js';
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
export { systemBinary } from './trusted-binary.js';
export { runFile, type FileRun } from './run-file.js';
