import path from 'node:path';
import {
  ArborError,
  type Caveats,
  type NetCredential,
  type ProtectedPath,
  type SandboxSettings,
} from '../../protocol/index.js';
import type { Tool, ToolSource } from '../tool.js';
import {
  DEFAULT_BUILTIN_LIMITS,
  type BuiltinContext,
  type BuiltinLimits,
} from './builtin-context.js';
import { execEnv } from './exec-env.js';
import { execTool } from './exec-tool.js';
import { fsEditTool } from './fs-edit.js';
import { fsGlobTool } from './fs-glob.js';
import { fsListTool } from './fs-list.js';
import { fsReadTool } from './fs-read.js';
import { fsWriteTool } from './fs-write.js';
import { httpFetchTool, offersFetch } from './http-fetch.js';
import { PathGuard } from './path-guard.js';

export interface BuiltinToolsOptions {
  /** The node's authority: `fs_read`, `fs_write` and `exec` are enforced on every call. */
  caveats: Caveats;
  /** Absolute working directory (the node's worktree): paths resolve here, `exec` runs here. */
  cwd: string;
  /** Lower (or raise) the tools' size and time limits. */
  limits?: Partial<BuiltinLimits>;
  /** Variables `exec` commands get on top of the allowed part of the process environment. */
  env?: Readonly<Record<string, string>>;
  /** How `exec` commands are contained (the payload's `sandbox`). */
  sandbox: SandboxSettings;
  /** The run's own state, outside every grant (the payload's `protected_paths`). */
  protect: readonly ProtectedPath[];
  /** The payload's `named_hosts` (default none): what may resolve to a private address. */
  namedHosts?: readonly string[];
  /** The payload's `net_credentials` (default none): headers `http.fetch` adds for a host. */
  netCredentials?: readonly NetCredential[];
  /** The payload's `egress.control`: the node's egress proxy, for `exec`'s commands. */
  egress?: string | undefined;
}

/**
 * The built-in tools, in the order they are offered, each with the grant that offers it: a tool
 * whose axis grants nothing at all is not offered, so a model is never shown a tool every call of
 * which would be refused.
 */
const BUILTINS: readonly { make(context: BuiltinContext): Tool; isOffered(c: Caveats): boolean }[] =
  [
    { make: fsReadTool, isOffered: (c) => grants(c.fs_read) },
    { make: fsListTool, isOffered: (c) => grants(c.fs_read) },
    { make: fsGlobTool, isOffered: (c) => grants(c.fs_read) },
    { make: fsWriteTool, isOffered: (c) => grants(c.fs_write) },
    { make: fsEditTool, isOffered: (c) => grants(c.fs_write) },
    { make: execTool, isOffered: (c) => grants(c.exec) },
    { make: (context) => httpFetchTool(context), isOffered: (c) => offersFetch(c.net) },
  ];

/**
 * The built-in tools as a `ToolSource` of kind `builtin`: `fs.read`, `fs.list`, `fs.glob` (under
 * `fs_read`), `fs.write`, `fs.edit` (under `fs_write`), `exec` (exact commands under `exec`, in
 * the sandbox) and `http.fetch` (hosts under `net`), those the node's grant offers.
 */
export function builtinTools(options: BuiltinToolsOptions): ToolSource {
  const context = builtinContext(options);
  const tools = BUILTINS.filter((b) => b.isOffered(options.caveats)).map((b) => b.make(context));
  return { kind: 'builtin', name: 'builtin', tools: () => tools };
}

/**
 * Every built-in tool under this grant, offered or not, for what each declares to the trifecta:
 * the supervisor gates a tool by name before it knows what a child offers, and the runtime
 * trifecta judges a call of a built-in's name as the built-in's.
 */
export function everyBuiltinTool(options: BuiltinToolsOptions): readonly Tool[] {
  const context = builtinContext(options);
  return BUILTINS.map((b) => b.make(context));
}

function builtinContext(options: BuiltinToolsOptions): BuiltinContext {
  if (!path.isAbsolute(options.cwd)) {
    throw new ArborError(
      'config',
      `Expected the built-in tools' \`cwd\` to be an absolute path, got \`${options.cwd}\`.`,
    );
  }
  const limits = { ...DEFAULT_BUILTIN_LIMITS, ...options.limits };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new ArborError(
        'config',
        `Expected the built-in tool limit \`${name}\` to be a positive integer, got ${String(value)}.`,
      );
    }
  }
  const cwd = path.resolve(options.cwd);
  let env: Record<string, string> | undefined;
  return {
    caveats: options.caveats,
    cwd,
    guard: new PathGuard({ caveats: options.caveats, cwd, protect: options.protect }),
    limits,
    // Worked out when `exec` first runs a command, not for every child that is offered it.
    get env() {
      env ??= execEnv(process.env, options.env);
      return env;
    },
    sandbox: options.sandbox,
    protect: options.protect,
    namedHosts: options.namedHosts ?? [],
    netCredentials: options.netCredentials ?? [],
    egress: options.egress,
  };
}

function grants(scope: Caveats['fs_read']): boolean {
  return scope === 'all' || scope.length > 0;
}
