import type { ToolTrifecta } from '../../authority/index.js';
import type {
  Caveats,
  NetCredential,
  ProtectedPath,
  SandboxSettings,
} from '../../protocol/index.js';
import type { PathGuard } from './path-guard.js';

/** Size and time limits of the built-in tools. Each has a default; tests and config may lower them. */
export interface BuiltinLimits {
  /** Lines `fs.read` returns when the call names no `limit`. */
  readLines: number;
  /** Bytes of file text `fs.read` returns at most in one call; the rest is left for a next call. */
  readBytes: number;
  /** Largest file `fs.edit` loads, in bytes. */
  editBytes: number;
  /** Directory entries `fs.list` returns at most. */
  listEntries: number;
  /** Paths `fs.glob` returns at most. */
  globResults: number;
  /** `exec` timeout when the call names none, in milliseconds. */
  execTimeoutMs: number;
  /** Largest `timeout_ms` a call may ask for, in milliseconds. */
  execMaxTimeoutMs: number;
  /** Bytes of combined stdout and stderr `exec` returns: the tail, where errors usually are. */
  execOutputBytes: number;
  /** Between SIGTERM and SIGKILL when a command is stopped, in milliseconds. */
  execKillGraceMs: number;
  /** `http.fetch` time limit when the call names none (redirects included), in milliseconds. */
  fetchTimeoutMs: number;
  /** Largest `timeout_ms` an `http.fetch` call may ask for, in milliseconds. */
  fetchMaxTimeoutMs: number;
  /** Largest response body `http.fetch` reads, and largest request body it sends, in bytes. */
  fetchMaxBytes: number;
}

export const DEFAULT_BUILTIN_LIMITS: BuiltinLimits = {
  readLines: 2000,
  readBytes: 128 * 1024,
  editBytes: 8 * 1024 * 1024,
  listEntries: 1000,
  globResults: 1000,
  execTimeoutMs: 120_000,
  execMaxTimeoutMs: 600_000,
  execOutputBytes: 32 * 1024,
  execKillGraceMs: 2000,
  fetchTimeoutMs: 30_000,
  fetchMaxTimeoutMs: 120_000,
  fetchMaxBytes: 1024 * 1024,
};

/** What every built-in tool shares: the grant, where it works, and its limits. */
export interface BuiltinContext {
  caveats: Caveats;
  /** Absolute working directory: relative paths resolve here and `exec` runs here. */
  cwd: string;
  guard: PathGuard;
  limits: BuiltinLimits;
  /** The environment `exec` commands get: already free of credentials. */
  env: Readonly<Record<string, string>>;
  /** How `exec` commands are contained. */
  sandbox: SandboxSettings;
  /** The run's own state: outside every grant, for the file tools and the sandbox alike. */
  protect: readonly ProtectedPath[];
  /** The hosts the operator named exactly (`named_hosts`): the only way to a private address. */
  namedHosts: readonly string[];
  /** Headers `http.fetch` adds for a host (`net_credentials`): secrets the model never sees. */
  netCredentials: readonly NetCredential[];
  /** The node's egress proxy's control socket; absent, commands have no network. */
  egress: string | undefined;
}

/**
 * What the file tools declare to the trifecta: no leg by holding them. What `fs.read` reads is
 * judged per call by the runtime trifecta instead (a file matching `sensitive_paths` makes the
 * node sensitive).
 */
export const FILE_TOOL_TRIFECTA: ToolTrifecta = { tags: [] };
