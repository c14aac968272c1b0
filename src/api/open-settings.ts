import path from 'node:path';
import { ConfigFileSchema, loadConfigFile, type ConfigFile } from '../config/index.js';
import { resolveRunSettings, type RunSettings } from '../config/index.js';
import { resolveFleet } from '../config/fleet-settings.js';
import { resolveNetCredentials } from '../config/net-credential-table.js';
import { resolveCredentials } from '../intel/index.js';
import { ArborError, formatIssues, type IntelConfig } from '../protocol/index.js';
import { toCamel } from '../runtime/index.js';
import { resolvePeerSecrets, resolveServerSecrets } from '../supervisor/spawn/server-secrets.js';
import { apiKeysOf, configOf } from './config-of.js';
import type { ArborOptions } from './options.js';

/** What `Arbor.open` resolved: the settings every run starts from, and the intelligence. */
export interface OpenSettings {
  base: RunSettings;
  intelligence: IntelConfig;
  cwd: string;
}

/**
 * Validates and resolves an `Arbor`'s options exactly as `arbor run --config` resolves a config
 * file (the options are its tables), then the credentials: keys given in code, else the
 * environment. An error names the option the way it was written (`limits.maxSteps`).
 */
export async function openSettings(
  options: ArborOptions,
  env: NodeJS.ProcessEnv,
): Promise<OpenSettings> {
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const file = options.config === undefined ? undefined : loadConfigFile(options.config);
  const merged = mergeTables(file ?? {}, configOf(options));
  const parsed = ConfigFileSchema.safeParse(merged, { reportInput: true });
  if (!parsed.success)
    throw new ArborError('config', `Arbor.open: ${camelPaths(formatIssues(parsed.error.issues))}.`);
  const config: ConfigFile = parsed.data;
  const intel = config.intelligence;
  if (intel?.endpoint === undefined && intel?.endpoints === undefined)
    throw new ArborError(
      'config',
      'Arbor.open: no model endpoint: give `intelligence: { endpoints: [URL], model }` (or a `config` file with `[intelligence]`).',
    );
  if (intel.model === undefined && (intel.endpoint ?? []).some((e) => e.model === undefined))
    throw new ArborError('config', 'Arbor.open: no model name: give `intelligence.model`.');
  let base: RunSettings;
  try {
    // The environment does not override code: only the options (and their file) are read.
    base = resolveRunSettings(
      '(set per run)',
      { config: 'Arbor.open' },
      {},
      { config: { ...config, queue: undefined, net: undefined }, cwd },
    );
    // A fleet's Redis URL, password and all, is the environment's to give (`redis = "env:NAME"`).
    // The admitted workers are read again from the file when they came from it.
    const admitFile = file?.queue?.admit === undefined ? undefined : options.config;
    const fleet = resolveFleet(undefined, config.queue, env, undefined, admitFile);
    if (fleet !== undefined) base.fleet = fleet;
    // So are the values of `http.fetch` credentials (`env:NAME`), or their files.
    base.netCredentials = resolveNetCredentials(config.net?.credential ?? [], env, 'Arbor.open');
  } catch (error) {
    if (error instanceof ArborError) throw new ArborError('config', camelPaths(error.message));
    throw error;
  }
  if (base.dbPath !== ':memory:') base.dbPath = path.resolve(cwd, base.dbPath);
  const keys = apiKeysOf(options);
  const configured = base.intelligence;
  if (configured === undefined) throw new ArborError('config', 'Arbor.open: no intelligence.');
  const intelligence = resolveCredentials(
    {
      ...configured,
      endpoints: configured.endpoints.map((endpoint, index) => {
        const key = keys.get(index);
        return key === undefined ? endpoint : { ...endpoint, api_key: key };
      }),
    },
    env,
  );
  base.mcpServers = await resolveServerSecrets(base.mcpServers, env);
  base.a2aPeers = await resolvePeerSecrets(base.a2aPeers ?? [], env);
  return { base, intelligence, cwd };
}

/** Sections the options replace whole (the options' `intelligence` always names its endpoints). */
const WHOLE = new Set(['intelligence', 'mcp']);

/** File tables, with each key the options give replacing the file's. */
function mergeTables(
  file: Record<string, unknown>,
  code: Record<string, unknown>,
): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...file };
  for (const [section, table] of Object.entries(code)) {
    const under = merged[section];
    merged[section] =
      isTable(under) && isTable(table) && !WHOLE.has(section) ? { ...under, ...table } : table;
  }
  return merged;
}

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `limits.max_steps` → `limits.maxSteps`, inside backticks, as the options are written. */
function camelPaths(message: string): string {
  return message.replace(/`([a-z][a-z0-9_.[\]]*)`/g, (_, name: string) => `\`${toCamel(name)}\``);
}
