export {
  ConfigFileSchema,
  loadConfigFile,
  parseConfigToml,
  readConfigText,
  type ConfigFile,
} from './config-file.js';
export { formatDuration, MAX_DURATION_MS, parseAge, parseDuration } from './duration.js';
export { openRuntime } from './open-runtime.js';
export { providerOption } from './provider-option.js';
export {
  resolveGrant,
  resolveMcpServers,
  resolveSecurity,
  type SandboxChoice,
  type SecuritySettings,
} from './run-authority.js';
export {
  recordedIntelOf,
  recordIntel,
  RecordedIntelSchema,
  type RecordedIntel,
} from './recorded-intel.js';
export { resolveRunSettings, type RunFlags, type RunSettings } from './run-settings.js';
export { problemsError, problemsOf, validateAll } from './validate-all.js';
export { type PrincipalEntry, type ServeTable, type TriggerEntry } from './serve-table.js';
