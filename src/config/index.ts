export {
  ConfigFileSchema,
  loadConfigFile,
  parseConfigToml,
  readConfigText,
  type ConfigFile,
} from './config-file.js';
export { MAX_DURATION_MS, parseAge, parseDuration } from './duration.js';
export { type McpServeTable } from './mcp-serve-table.js';
export { openRuntime } from './open-runtime.js';
export { resolveGrant, resolveMcpServers } from './run-authority.js';
export { intelMeta, recordedIntelOf, type RecordedIntel } from './recorded-intel.js';
export type { RunFlags } from './run-flags.js';
export { resolveRunSettings, type RunSettings } from './run-settings.js';
export { validateAll } from './validate-all.js';
export { type PrincipalEntry, type ServeTable, type TriggerEntry } from './serve-table.js';
