import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ArborError, isArborError } from '../../protocol/index.js';

/** Why a server could not be connected. */
type McpFailureKind =
  /** A `{{secret:…}}`/`{{env:…}}` reference did not resolve. */
  | 'config'
  /** The stdio command could not be started (not found, not executable). */
  | 'spawn_failed'
  /** The stdio server exited before it finished connecting. */
  | 'exited'
  /** The HTTP server could not be reached (refused, unknown host, reset). */
  | 'refused'
  /** The HTTP server answered with an error status. */
  | 'http_status'
  /** Connect, initialize and the first tool listing did not finish within `connect_timeout_ms`. */
  | 'timeout'
  /** The server answered, but not as MCP: a bad handshake, an unsupported version, a bad list. */
  | 'protocol';

/** What went wrong while connecting, as far as the connection saw it. */
export interface ConnectFailure {
  kind: McpFailureKind;
  /** One clause, already free of secrets: `answered HTTP 401`. */
  detail: string;
  details?: Record<string, unknown>;
}

/** An `mcp_unavailable` error naming the server and the class of failure; never a URL or a value. */
export function mcpUnavailable(server: string, failure: ConnectFailure): ArborError {
  return new ArborError(
    'mcp_unavailable',
    `MCP server \`${server}\` is unavailable: ${failure.detail}.`,
    {
      details: { server, kind: failure.kind, ...failure.details },
    },
  );
}

/** Node's system errors (`spawn x ENOENT`, `connect ECONNREFUSED`) carry a `code` and `syscall`. */
function systemError(value: unknown): { code: string; syscall?: string } | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { code, syscall } = value as { code?: unknown; syscall?: unknown };
  if (typeof code !== 'string') return undefined;
  return typeof syscall === 'string' ? { code, syscall } : { code };
}

/** The network cause of a failed `fetch` (`TypeError: fetch failed`, cause `ECONNREFUSED`). */
function networkCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth += 1) {
    const code = systemError(current)?.code;
    if (code !== undefined && /^E[A-Z_]+$/.test(code)) return code;
    current = current.cause;
  }
  return undefined;
}

export interface FailureContext {
  transport: 'stdio' | 'http';
  command?: string | undefined;
  /** Did the stdio server's process end? */
  hasExited: boolean;
  /** Scrubbed last stderr lines of a stdio server. */
  stderr: readonly string[];
  scrub: (text: string) => string;
}

function exitedDetail(context: FailureContext): string {
  const tail =
    context.stderr.length === 0 ? '' : `; its last stderr lines: ${context.stderr.join(' | ')}`;
  return `the server exited before it finished connecting${tail}`;
}

/**
 * Sorts an error thrown while connecting into a failure class. Messages from Node's network layer
 * are not quoted (they carry host and port); a server's own words are quoted scrubbed.
 */
export function classifyConnectError(error: unknown, context: FailureContext): ConnectFailure {
  if (isArborError(error, 'config'))
    return { kind: 'config', detail: error.message.replace(/\.$/, '') };
  const system = systemError(error);
  if (context.transport === 'stdio' && system?.syscall?.startsWith('spawn') === true) {
    return {
      kind: 'spawn_failed',
      detail: `could not start its command \`${context.command ?? ''}\` (${system.code})`,
      details: { errno: system.code },
    };
  }
  if (context.hasExited) return { kind: 'exited', detail: exitedDetail(context) };
  if (error instanceof StreamableHTTPError && error.code !== undefined && error.code > 0) {
    const hint = error.code === 401 || error.code === 403 ? '; check its `headers`' : '';
    return {
      kind: 'http_status',
      detail: `the server answered HTTP ${error.code}${hint}`,
      details: { status: error.code },
    };
  }
  const network = networkCode(error);
  if (context.transport === 'http' && network !== undefined) {
    return {
      kind: 'refused',
      detail: `the server could not be reached (${network})`,
      details: { errno: network },
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  return {
    kind: 'protocol',
    detail: `the server did not speak MCP as expected: ${context.scrub(message)}`,
  };
}
