export {
  DEFAULT_BUILTIN_LIMITS,
  EXEC_OFFLINE_TAGS,
  EXEC_TRIFECTA_TAGS,
  HTTP_FETCH_TAGS,
  builtinTools,
  everyBuiltinTool,
  execEnv,
  runCommand,
  type BuiltinToolsOptions,
} from './builtin/index.js';
export {
  SANDBOX_HINT,
  bwrapArgs,
  gitDirPointer,
  runFile,
  withSealedStdio,
  nodeFsView,
  outermostGitDir,
  netBridge,
  openEgressSession,
  planMounts,
  prepareCommand,
  probeSandbox,
  systemBinary,
  sweepPlantedPointers,
  locateTrustedBinary,
  operatorSetting,
  toolchainRoot,
  trustProblem,
  type TrustContext,
  type FsView,
  type Mount,
  type MountPlan,
  type SandboxSpec,
  type FileRun,
} from './sandbox/index.js';
export {
  AskHumanArgs,
  EGRESS_APPROVAL,
  EgressApprovalArgs,
  type BudgetRequest,
  HISTORY_ARG,
  internalToolArgs,
  MemoryDeleteArgs,
  MemoryGetArgs,
  MemoryListArgs,
  MemorySetArgs,
  MEMORY_BOUNDS,
  SleepArgs,
  SubagentAwaitArgs,
  SubagentKillArgs,
  SubagentRunArgs,
  SubagentSendArgs,
  SubagentStatusArgs,
} from './internal-catalog.js';
// The trifecta rule lives in `src/authority/` (the policy in `src/authority/policy/`); the tools
// barrel offers the rule next to the tools it judges.
export { checkTrifecta, effectiveServerTags, type ToolProfile } from '../authority/index.js';
export {
  toolError,
  toolRefusal,
  type Tool,
  type ToolCallContext,
  type ToolHost,
  type ToolKind,
  type ToolOutput,
  type ToolSource,
} from './tool.js';
export { ToolRegistry } from './tool-registry.js';
export { GuardedTools, type EgressApproval } from './guarded-tools.js';
export {
  DETECTOR_RULES,
  detectInjection,
  isolationPrompt,
  mintMarker,
  wrapUntrusted,
} from './content/index.js';
export {
  MCP_META_KEYS,
  McpConnection,
  McpToolSource,
  connectMcpServer,
  connectMcpServers,
  mcpToolNames,
  resolveReferences,
  type McpCallResult,
  type McpServerSet,
} from './mcp/index.js';
export {
  defineTool,
  hostToolDef,
  hostToolFor,
  type HostTool,
  type HostToolContext,
} from './host-tool.js';
