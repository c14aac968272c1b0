import {
  ArborError,
  McpServerSpecSchema,
  TrifectaTagSchema,
  formatIssues,
  type Caveats,
  type McpServerSpec,
  type Scope,
} from '../protocol/index.js';
import path from 'node:path';
import { canonicalPath, parseNetEntry } from '../authority/index.js';
import type { ConfigFile } from './config-file.js';
import type { RunFlags } from './run-flags.js';

export type { SecuritySettings } from '../runtime/index.js';
import type { SecuritySettings } from '../runtime/index.js';
import { DEFAULT_EGRESS_LIMITS } from '../supervisor/index.js';

/**
 * `--sandbox` (env `ARBOR_SANDBOX`) over `security.sandbox`; the runtime trifecta, the sensitive
 * path patterns, the risk threshold and the untrusted tools from `[security]`.
 */
export function resolveSecurity(
  flags: RunFlags,
  config: ConfigFile | undefined,
  env: NodeJS.ProcessEnv,
): SecuritySettings {
  const security = config?.security;
  const flag = flags.sandbox ?? (env.ARBOR_SANDBOX === '' ? undefined : env.ARBOR_SANDBOX);
  const name = flags.sandbox !== undefined ? '--sandbox' : 'ARBOR_SANDBOX';
  if (flag !== undefined && flag !== 'auto' && flag !== 'required' && flag !== 'off') {
    throw new ArborError(
      'usage',
      `Expected \`${name}\` to be \`auto\`, \`required\` or \`off\`, got \`${flag}\`.`,
    );
  }
  const network = flags['sandbox-network'] ?? security?.network ?? 'proxy';
  if (network !== 'proxy' && network !== 'host')
    throw new ArborError(
      'usage',
      `Expected \`--sandbox-network\` to be \`proxy\` or \`host\`, got \`${network}\`.`,
    );
  return {
    sandbox: flag ?? security?.sandbox ?? 'auto',
    network,
    egress: {
      maxConnections: security?.egress_max_connections ?? DEFAULT_EGRESS_LIMITS.maxConnections,
      maxBytes: security?.egress_max_bytes ?? DEFAULT_EGRESS_LIMITS.maxBytes,
    },
    runtimeTrifecta: {
      mode: security?.runtime_trifecta ?? 'ask',
      sensitive_paths: security?.sensitive_paths ?? [],
      risk_ask_at: security?.risk_ask_at ?? 0.8,
    },
    untrustedTools: security?.untrusted_tools ?? [],
    ...(security?.bwrap === undefined ? {} : { bwrap: security.bwrap }),
    ...(security?.git === undefined ? {} : { git: security.git }),
  };
}

/** Every `net` entry must be a host, `host:port` or `*.suffix`: a bad one is named. */
function checkNet(net: Scope, source: string): void {
  if (net === 'all') return;
  for (const entry of net) {
    const parsed = parseNetEntry(entry);
    if (typeof parsed === 'string') {
      throw new ArborError(
        'usage',
        `${source}: ${parsed}; expected a host name, \`host:port\`, an IP address or \`*.suffix\`.`,
      );
    }
  }
}

/**
 * The run's grant: by default file access confined to the working directory, `exec` and `net`
 * unrestricted; narrowed by the config's `[grant]` table and then by flags. A flag takes `all`,
 * `none`, or a comma-separated list.
 */
export function resolveGrant(
  flags: RunFlags,
  config: ConfigFile | undefined,
  cwd: string,
): Caveats {
  const axis = (flag: 'fs-read' | 'fs-write' | 'exec' | 'net'): Scope | undefined => {
    const value = flags[flag];
    if (value === undefined) return undefined;
    if (value === 'all') return 'all';
    if (value === 'none') return [];
    const items = value
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '');
    if (items.length === 0)
      throw new ArborError(
        'usage',
        `Expected \`--${flag}\` to be \`all\`, \`none\` or a comma-separated list, got \`${value}\`.`,
      );
    return items;
  };
  const file = config?.grant;
  const net = axis('net') ?? file?.net ?? 'all';
  checkNet(net, flags.net !== undefined ? '--net' : `${flags.config ?? 'config'}: grant.net`);
  // Paths are granted as the real paths they are now: an entry that is a symlink grants what it
  // points at today, and a link planted inside the grant later grants nothing.
  const real = (scope: Scope): Scope =>
    scope === 'all' ? 'all' : scope.map((entry) => canonicalPath(path.resolve(cwd, entry)));
  return {
    fs_read: real(axis('fs-read') ?? file?.fs_read ?? [cwd]),
    fs_write: real(axis('fs-write') ?? file?.fs_write ?? [cwd]),
    exec: axis('exec') ?? file?.exec ?? 'all',
    net,
    max_calls: file?.max_calls ?? 'unlimited',
  };
}

/**
 * The root's MCP servers: `[[mcp.server]]` tables from the config, then `--mcp NAME=COMMAND` (a
 * stdio server; the command is split on spaces) or `--mcp NAME=URL` (Streamable HTTP), with
 * `--mcp-tags NAME=tag,tag` adding trifecta tags. A flag naming a configured server replaces it;
 * two flags, or two tables, naming one server are refused: which one was meant is not known.
 */
export function resolveMcpServers(
  flags: RunFlags,
  config: ConfigFile | undefined,
): McpServerSpec[] {
  const servers = new Map<string, McpServerSpec>();
  const fromFlags = new Set<string>();
  for (const table of config?.mcp?.server ?? []) {
    if (servers.has(table.name))
      throw new ArborError(
        'config',
        `${flags.config ?? 'config'}: \`mcp.server\` \`${table.name}\` is named twice; each server needs its own name.`,
      );
    const parsed = McpServerSpecSchema.safeParse(table, { reportInput: true });
    if (!parsed.success)
      throw new ArborError(
        'config',
        `${flags.config ?? 'config'}: \`mcp.server\` \`${table.name}\`: ${formatIssues(parsed.error.issues)}`,
      );
    servers.set(parsed.data.name, parsed.data);
  }
  for (const entry of flags.mcp ?? []) {
    const [name = '', ...rest] = entry.split('=');
    const target = rest.join('=').trim();
    if (name === '' || target === '')
      throw new ArborError(
        'usage',
        `Expected \`--mcp\` as \`NAME=COMMAND\` or \`NAME=URL\`, got \`${entry}\`.`,
      );
    if (fromFlags.has(name))
      throw new ArborError(
        'usage',
        `\`--mcp ${name}=…\` is given twice; each MCP server needs its own name.`,
      );
    fromFlags.add(name);
    const [command = '', ...args] = target.split(/\s+/);
    const candidate = /^https?:\/\//.test(target) ? { name, url: target } : { name, command, args };
    const parsed = McpServerSpecSchema.safeParse(candidate, { reportInput: true });
    if (!parsed.success)
      throw new ArborError('usage', `\`--mcp ${entry}\`: ${formatIssues(parsed.error.issues)}`);
    servers.set(name, parsed.data);
  }
  for (const entry of flags['mcp-tags'] ?? []) {
    const [name = '', tags = ''] = entry.split('=');
    const server = servers.get(name);
    if (server === undefined)
      throw new ArborError(
        'usage',
        `\`--mcp-tags ${entry}\` names no MCP server (yours: ${[...servers.keys()].join(', ') || 'none'}).`,
      );
    const parsed = TrifectaTagSchema.array().safeParse(tags.split(',').filter((tag) => tag !== ''));
    if (!parsed.success)
      throw new ArborError(
        'usage',
        `\`--mcp-tags ${entry}\`: expected tags among untrusted_input, sensitive, egress.`,
      );
    servers.set(name, { ...server, tags: parsed.data });
  }
  return [...servers.values()];
}
