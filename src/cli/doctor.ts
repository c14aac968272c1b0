import { checkEgress } from './doctor-egress.js';
import { checkPrices } from './doctor-prices.js';
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_DB_PATH, openSqlDatabase } from '../store/index.js';
import { defaultRunGrant } from '../authority/index.js';
import {
  locateTrustedBinary,
  operatorSetting,
  probeSandbox,
  SANDBOX_HINT,
  type TrustContext,
} from '../tools/index.js';
import { loadConfigFile } from '../config/index.js';
import { EXIT, trustContext } from '../runtime/index.js';
import { write, type CliIo } from './output.js';
import { parseCommandArgs } from './usage-error.js';

const DOCTOR_HELP = `Usage: arbor doctor [--db PATH] [--config FILE] [--json]

Checks what this machine has and lacks for arbor, one line each: Node.js, the run store, SQLite,
the exec sandbox (bubblewrap), git, the MCP SDK and the price table (its source, its date, and
each configured model it has no price for). bubblewrap and git are taken from /usr/bin,
/bin, /usr/local/bin or /usr/sbin (or ARBOR_BWRAP, ARBOR_GIT), never from PATH, and each line says
where one came from and whether it can be trusted: outside every path an agent may write, owned by
root or you, no directory on the way writable by others. A sandbox that cannot be trusted counts
as missing. Exits 1 when something arbor needs is missing.
`;

/** One check's verdict. */
interface Check {
  name: string;
  /** `ok`; `missing`: arbor needs it; `off`: the operator turned it off; `absent`: optional, not here. */
  status: 'ok' | 'missing' | 'off' | 'absent';
  detail: string;
}

const MIN_NODE_MAJOR = 20;

/** `arbor doctor`: what this machine has and lacks, one line each. */
export async function doctor(args: string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs('doctor', args, {
    db: { type: 'string' },
    config: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    await write(io.stdout, DOCTOR_HELP);
    return EXIT.ok;
  }
  const config = values.config === undefined ? undefined : loadConfigFile(values.config);
  const dbPath = values.db ?? io.env.ARBOR_DB ?? config?.store?.path ?? DEFAULT_DB_PATH;
  const sandboxOff = (io.env.ARBOR_SANDBOX ?? config?.security?.sandbox) === 'off';
  const cwd = process.cwd();
  const defaults = defaultRunGrant(cwd);
  const trust = trustContext(
    { ...defaults, fs_write: config?.grant?.fs_write ?? defaults.fs_write },
    cwd,
  );
  const checks = [
    checkNode(),
    checkStorePath(dbPath),
    checkSqlite(),
    await checkSandbox(io.env, sandboxOff, config?.security?.bwrap, trust),
    await checkEgress(
      sandboxOff
        ? { mode: 'off' }
        : await probeSandbox({ env: io.env, bwrap: config?.security?.bwrap, trust }),
    ),
    checkGit(io.env, config?.security?.git, trust),
    await checkMcpSdk(),
    ...(await checkPrices(config, io.env)),
  ];
  if (values.json === true) {
    await write(io.stdout, `${JSON.stringify({ checks })}\n`);
  } else {
    const width = Math.max(...checks.map((c) => c.name.length));
    const lines = checks.map((c) => `${c.name.padEnd(width)}  ${c.status.padEnd(7)}  ${c.detail}`);
    await write(io.stdout, `${lines.join('\n')}\n`);
  }
  return checks.some((c) => c.status === 'missing') ? EXIT.internal : EXIT.ok;
}

function checkNode(): Check {
  const major = Number(process.versions.node.split('.')[0]);
  return major >= MIN_NODE_MAJOR
    ? {
        name: 'node',
        status: 'ok',
        detail: `${process.version} (arbor needs ${MIN_NODE_MAJOR} or newer)`,
      }
    : {
        name: 'node',
        status: 'missing',
        detail: `${process.version}: arbor needs Node.js ${MIN_NODE_MAJOR} or newer`,
      };
}

/** Can the store be written where it is configured? Checked without creating anything. */
function checkStorePath(dbPath: string): Check {
  const absolute = path.resolve(dbPath);
  const name = 'store';
  const virtual = ['/proc', '/sys', '/dev'].find(
    (root) => absolute === root || absolute.startsWith(`${root}/`),
  );
  if (virtual !== undefined)
    return {
      name,
      status: 'missing',
      detail: `${dbPath} is under ${virtual}, a virtual filesystem`,
    };
  try {
    const stats = statSync(absolute, { throwIfNoEntry: false });
    if (stats?.isDirectory() === true)
      return { name, status: 'missing', detail: `${dbPath} is a directory, not a database file` };
    if (stats !== undefined) {
      accessSync(absolute, constants.R_OK | constants.W_OK);
      return { name, status: 'ok', detail: `${dbPath} exists and is writable` };
    }
    let dir = path.dirname(absolute);
    while (statSync(dir, { throwIfNoEntry: false }) === undefined) dir = path.dirname(dir);
    if (!statSync(dir).isDirectory())
      return {
        name,
        status: 'missing',
        detail: `${dbPath} cannot be created: ${dir} is not a directory`,
      };
    accessSync(dir, constants.W_OK);
    return { name, status: 'ok', detail: `${dbPath} can be created (${dir} is writable)` };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    return { name, status: 'missing', detail: `${dbPath} is not writable (${code})` };
  }
}

function checkSqlite(): Check {
  try {
    const db = openSqlDatabase(':memory:');
    const version = (db.prepare('select sqlite_version() as v').get() as { v: string }).v;
    db.close();
    return { name: 'sqlite', status: 'ok', detail: `SQLite ${version} through ${db.driver}` };
  } catch (error) {
    return {
      name: 'sqlite',
      status: 'missing',
      detail: error instanceof Error ? error.message : String(error),
    };
  }
}

async function checkSandbox(
  env: NodeJS.ProcessEnv,
  off: boolean,
  bwrap: string | undefined,
  trust: TrustContext,
): Promise<Check> {
  const name = 'sandbox';
  const probe = await probeSandbox({ env, bwrap, trust });
  if (off) {
    return {
      name,
      status: 'off',
      detail: `turned off (security.sandbox or ARBOR_SANDBOX = "off"): commands run unsandboxed${probe.mode === 'bwrap' ? '; bubblewrap would work here' : ''}`,
    };
  }
  if (probe.mode === 'bwrap') {
    return {
      name,
      status: 'ok',
      detail: `bubblewrap at ${probe.bwrap ?? 'bwrap'} (${probe.origin ?? 'found'}, trusted) can create a sandbox here`,
    };
  }
  return {
    name,
    status: 'missing',
    detail: `${probe.reason ?? 'bubblewrap cannot run here'}: ${SANDBOX_HINT}`,
  };
}

/**
 * git, for `plan run --worktrees`: where it comes from and whether it can be trusted. Optional —
 * its absence fails nothing — but a git the operator named that cannot be trusted does.
 */
function checkGit(
  env: NodeJS.ProcessEnv,
  configured: string | undefined,
  trust: TrustContext,
): Check {
  const setting = operatorSetting(env, 'ARBOR_GIT', 'security.git', configured);
  const found = locateTrustedBinary('git', setting, trust);
  if (found.trusted)
    return { name: 'git', status: 'ok', detail: `${found.path} (${found.origin}, trusted)` };
  if (found.path === undefined)
    return {
      name: 'git',
      status: 'absent',
      detail: `${found.reason} (needed only for --worktrees)`,
    };
  return {
    name: 'git',
    status: setting.value === undefined ? 'absent' : 'missing',
    detail: `${found.path} (${found.origin ?? 'found'}) cannot be trusted: ${found.reason}`,
  };
}

async function checkMcpSdk(): Promise<Check> {
  try {
    await import('@modelcontextprotocol/sdk/client/index.js');
    return { name: 'mcp sdk', status: 'ok', detail: '@modelcontextprotocol/sdk loads' };
  } catch (error) {
    const why = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return {
      name: 'mcp sdk',
      status: 'missing',
      detail: `@modelcontextprotocol/sdk does not load (${why}); run \`npm ci\``,
    };
  }
}
