export { bwrapArgs } from './bwrap-args.js';
export { nodeFsView, type FsView } from './fs-view.js';
export {
  SANDBOX_HINT,
  prepareCommand,
  type CommandSandboxOptions,
  type PreparedCommand,
} from './prepare-command.js';
export { sweepPlantedPointers } from './sweep-git-pointers.js';
export {
  GIT_DIR_NAME,
  GIT_LAUNCHERS,
  SUBMODULES_DIR,
  gitDirPointer,
  outermostGitDir,
} from './git-launchers.js';
export { guardGitDirs, type GitGuard, type GitGuardSpec } from './git-guard.js';
export { probeSandbox, type SandboxProbeOptions } from './probe-sandbox.js';
export {
  MISSING,
  SYSTEM_BIN_DIRS,
  locateTrustedBinary,
  operatorSetting,
  systemBinary,
  trustProblem,
  type BinarySetting,
  type BinaryTrust,
  type TrustContext,
} from './trusted-binary.js';
export {
  PRIVATE_HOME,
  planMounts,
  toolchainRoot,
  type Mount,
  type MountPlan,
  type MountWhy,
  type SandboxSpec,
} from './sandbox-mounts.js';
export { inheritableFds, sealStdio, withSealedStdio, type StdioSlot } from './inherited-fds.js';
export { runFile, type FileRun, type RunFileOptions } from './run-file.js';
