import type { TracingSettings } from '../telemetry/tracing.js';
import {
  ArborError,
  DialectSchema,
  isArborError,
  IntelConfigSchema,
  formatIssues,
  type Dialect,
  type Endpoint,
  type IntelConfig,
} from '../protocol/index.js';
import { DEFAULTS, type RunConfig } from '../runtime/index.js';
import { DEFAULT_DB_PATH } from '../store/index.js';
import type { BudgetSettings, ProviderName } from '../supervisor/index.js';
import { resolveFleet, type FleetSettings } from './fleet-settings.js';
import { providerOption } from './provider-option.js';
import { validateAll } from './validate-all.js';
import { loadConfigFile, MAX_POOL, type ConfigFile } from './config-file.js';
import { parseDuration } from './duration.js';
import { resolveNetCredentials } from './net-credential-table.js';
import { refuseUrlCredentials } from './endpoint-credentials.js';
import { recordedEndpoints, type RecordedIntel } from './recorded-intel.js';
import { resolveGrant, resolveMcpServers, resolveSecurity } from './run-authority.js';
import type { RunFlags } from './run-flags.js';

/** Everything `arbor run` needs, validated, from defaults < config file < environment < flags. */
export interface RunSettings extends RunConfig {
  /** Endpoints without credentials: those are resolved from the environment when the run starts. */
  intelligence: IntelConfig | undefined;
  askFallback: 'fail' | 'wait';
  /** How agents run (`arbor run`: always `process`; a plan's leaves: `process` or `spawn`). */
  provider: ProviderName;
  json: boolean;
  mockLlm: string | undefined;
  configPath: string | undefined;
  /** `[observability]`: where traces go when the environment does not say. */
  tracing?: TracingSettings;
  /** Workers on Redis for `queue` nodes (`--provider queue`, `--redis`, `[queue]`). */
  fleet?: FleetSettings;
  /** Process children a pool keeps waiting, at most, following demand (0: no pool). */
  pool: number;
}

/** One source's say on a setting: the value and how to name it in an error. */
interface Layer {
  value: string;
  name: string;
}

/** What a caller knows beyond flags, environment and config file. */
interface GivenSettings {
  /** A config already read and validated (the library's options). */
  config?: ConfigFile;
  cwd?: string;
  providers?: readonly ProviderName[];
  /**
   * The intelligence the run being resumed recorded, read from the store at `dbPath`: the lowest
   * layer, for the model or endpoints that nothing else names.
   */
  recorded?: (dbPath: string) => RecordedIntel | undefined;
}

/** Resolves and validates every setting before anything runs. Errors exit 2. */
export function resolveRunSettings(
  instruction: string,
  flags: RunFlags,
  env: NodeJS.ProcessEnv,
  given: GivenSettings = {},
): RunSettings {
  // A config already read and validated (the library's options), or the `--config` file. A file
  // that cannot be used is one problem among the others, not the end of the checks.
  let configProblem: ArborError | undefined;
  let config = given.config;
  if (config === undefined && flags.config !== undefined) {
    try {
      config = loadConfigFile(flags.config);
    } catch (error) {
      if (!isArborError(error)) throw error;
      configProblem = error;
    }
  }
  const pick = (flag: keyof RunFlags, envName: string): Layer | undefined => {
    const fromFlag = flags[flag];
    if (typeof fromFlag === 'string') return { value: fromFlag, name: `--${flag}` };
    const fromEnv = env[envName];
    if (fromEnv !== undefined && fromEnv !== '') return { value: fromEnv, name: envName };
    return undefined;
  };
  const dbPath = pick('db', 'ARBOR_DB')?.value ?? config?.store?.path ?? DEFAULT_DB_PATH;
  const recorded = given.recorded === undefined ? undefined : () => given.recorded?.(dbPath);
  const deadline = pick('deadline', 'ARBOR_DEADLINE');
  const configDeadline = config?.limits?.deadline;
  const checked = validateAll({
    config: () => {
      if (configProblem !== undefined) throw configProblem;
    },
    // The root always runs in its own process; a plan's leaves may also run in this one.
    provider: () =>
      providerOption(pick('provider', 'ARBOR_PROVIDER'), given.providers ?? ['process', 'queue']),
    fleet: () =>
      resolveFleet(
        flags.redis,
        config?.queue,
        env,
        pick('provider', 'ARBOR_PROVIDER')?.value.trim(),
        // The file the admitted workers are read again from, when they came from one.
        given.config === undefined ? flags.config : undefined,
      ),
    // Without a usable config file, a missing model or endpoint may be the file's to give.
    intelligence: () =>
      resolveIntelligence(flags, config, pick, configProblem === undefined, recorded),
    maxSteps: () =>
      integer(pick('max-steps', 'ARBOR_MAX_STEPS'), 1) ??
      config?.limits?.max_steps ??
      DEFAULTS.maxSteps,
    deadlineMs: () =>
      deadline !== undefined
        ? durationOf(deadline)
        : configDeadline === undefined
          ? undefined
          : durationOf({
              value: configDeadline,
              name: `${flags.config ?? 'config'}: limits.deadline`,
            }),
    maxDepth: () =>
      integer(pick('max-depth', 'ARBOR_MAX_DEPTH'), 0) ??
      config?.limits?.max_depth ??
      DEFAULTS.maxDepth,
    maxQueued: () => config?.limits?.max_queued ?? DEFAULTS.maxQueued,
    pool: () => poolOf(pick('pool', 'ARBOR_POOL')) ?? config?.agent?.pool ?? 0,
    spawnRate: () => spawnRateOf(config?.limits?.spawn_rate, flags.config),
    askFallback: () =>
      askFallbackOf(pick('ask-fallback', 'ARBOR_ASK_FALLBACK')) ??
      config?.agent?.ask_human_fallback ??
      DEFAULTS.askFallback,
    grant: () => resolveGrant(flags, config, given.cwd ?? process.cwd()),
    mcpServers: () => resolveMcpServers(flags, config),
    netCredentials: () =>
      resolveNetCredentials(config?.net?.credential ?? [], env, flags.config ?? 'config'),
    security: () => resolveSecurity(flags, config, env),
    tokens: () => integer(pick('max-tokens', 'ARBOR_MAX_TOKENS'), 1) ?? config?.limits?.max_tokens,
    usd: () => positiveNumber(pick('budget-usd', 'ARBOR_BUDGET_USD')) ?? config?.budget?.usd,
    instruction: () => {
      if (instruction.trim() === '')
        throw new ArborError('usage', 'Expected an instruction: `arbor run "<what to do>"`.');
      return instruction;
    },
  });
  const { config: _config, tokens, usd, fleet, ...settings } = checked;
  return {
    ...settings,
    ...(fleet === undefined ? {} : { fleet }),
    processOnFleet: settings.provider === 'queue',
    swapPolicy: config?.intelligence?.swap_policy ?? DEFAULTS.swapPolicy,
    maxBreadth: config?.limits?.max_breadth ?? DEFAULTS.maxBreadth,
    maxTotal: config?.limits?.max_total ?? DEFAULTS.maxTotal,
    rules: config?.security?.policy ?? [],
    allowTrifecta: flags['allow-trifecta'] === true || config?.security?.allow_trifecta === true,
    budget: budgetOf(tokens, usd, config),
    dbPath,
    json: flags.json === true,
    warm: flags.warm === true,
    mockLlm: flags['mock-llm'],
    configPath: flags.config,
    tracing: tracingOf(config?.observability),
    a2aPeers: (config?.a2a?.peer ?? []).map((peer) => ({
      name: peer.name,
      url: peer.url,
      headers: {
        ...peer.headers,
        ...(peer.token === undefined
          ? {}
          : { authorization: `Bearer {{env:${peer.token.slice('env:'.length)}}}` }),
      },
    })),
  };
}

/** The intelligence config, or `undefined` when `--mock-llm` will supply the endpoint. */
function resolveIntelligence(
  flags: RunFlags,
  config: ConfigFile | undefined,
  pick: (flag: keyof RunFlags, envName: string) => Layer | undefined,
  isConfigUsable: boolean,
  readRecorded?: () => RecordedIntel | undefined,
): IntelConfig | undefined {
  const section = config?.intelligence;
  const dialectLayer = pick('dialect', 'ARBOR_DIALECT');
  const urls = pick('intel', 'ARBOR_INTEL');
  const modelGiven = pick('model', 'ARBOR_MODEL')?.value ?? section?.model;
  const hasEndpoints =
    urls !== undefined || section?.endpoint !== undefined || section?.endpoints !== undefined;
  // A resumed run falls back on what it recorded, for what nothing given now names.
  const recorded =
    flags['mock-llm'] === undefined && (!hasEndpoints || modelGiven === undefined)
      ? readRecorded?.()
      : undefined;
  const model = modelGiven ?? recorded?.model;
  const { dialect, endpointsGiven } = validateAll({
    dialect: () =>
      dialectLayer === undefined ? (section?.dialect ?? 'openai') : dialectOf(dialectLayer),
    endpointsGiven: () => {
      if (
        flags['mock-llm'] !== undefined &&
        (urls !== undefined || section?.endpoint !== undefined || section?.endpoints !== undefined)
      )
        throw new ArborError(
          'usage',
          '`--mock-llm` runs a scripted model; it cannot be combined with `--intel` or configured endpoints.',
        );
      if (flags['mock-llm'] !== undefined || !isConfigUsable) return undefined;
      if (!hasEndpoints && recorded === undefined)
        throw new ArborError(
          'usage',
          'No model endpoint: pass `--intel URL` (or set ARBOR_INTEL, or `intelligence.endpoints` in `--config`), or try `--mock-llm examples/playbooks/demo.json`.',
        );
      return true;
    },
    model: () => {
      if (flags['mock-llm'] === undefined && isConfigUsable && model === undefined)
        throw new ArborError(
          'usage',
          'No model name: pass `--model NAME` (or set ARBOR_MODEL, or `intelligence.model` in `--config`).',
        );
    },
  });
  if (endpointsGiven === undefined || model === undefined) return undefined;
  const endpointList: Endpoint[] =
    urls !== undefined
      ? urls.value.split(',').map((url) => ({ url: url.trim(), dialect, headers: {} }))
      : section?.endpoint !== undefined
        ? section.endpoint.map((table) => ({
            url: table.url,
            dialect: table.dialect ?? dialect,
            headers: table.headers ?? {},
            ...(table.model === undefined ? {} : { model: table.model }),
            ...(table.credential === undefined ? {} : { credential_ref: table.credential }),
            ...(table.sampling === undefined ? {} : { sampling: table.sampling }),
            ...(table.max_tokens_field === undefined
              ? {}
              : { max_tokens_field: table.max_tokens_field }),
            ...(table.prompt_cache === undefined
              ? {}
              : {
                  prompt_cache: {
                    enabled: table.prompt_cache.enabled ?? true,
                    ttl: table.prompt_cache.ttl ?? '5m',
                  },
                }),
          }))
        : section?.endpoints !== undefined
          ? section.endpoints.map((url) => ({ url, dialect, headers: {} }))
          : recorded === undefined
            ? []
            : recordedEndpoints(recorded, dialectLayer === undefined ? undefined : dialect);
  refuseUrlCredentials(
    endpointList.map((endpoint) => endpoint.url),
    urls?.name ??
      `${flags.config ?? 'config'}: intelligence.${section?.endpoint === undefined ? 'endpoints' : 'endpoint'}`,
  );
  const breaker = section?.breaker;
  const candidate = {
    endpoints: endpointList,
    model,
    ...(section?.sampling === undefined ? {} : { sampling: section.sampling }),
    ...(section?.timeout === undefined
      ? {}
      : { timeout_ms: durationOf({ value: section.timeout, name: 'intelligence.timeout' }) }),
    ...(section?.retries === undefined ? {} : { retries: section.retries }),
    ...(section?.prices === undefined ? {} : { prices: section.prices }),
    breaker: {
      ...(breaker?.threshold === undefined ? {} : { threshold: breaker.threshold }),
      ...(breaker?.cooldown === undefined
        ? {}
        : {
            cooldown_ms: durationOf({
              value: breaker.cooldown,
              name: 'intelligence.breaker.cooldown',
            }),
          }),
      ...(breaker?.cooldown_max === undefined
        ? {}
        : {
            cooldown_max_ms: durationOf({
              value: breaker.cooldown_max,
              name: 'intelligence.breaker.cooldown_max',
            }),
          }),
    },
  };
  const parsed = IntelConfigSchema.safeParse(candidate, { reportInput: true });
  if (!parsed.success) {
    const source = urls?.name ?? flags.config ?? 'intelligence';
    throw new ArborError('usage', `${source}: ${formatIssues(parsed.error.issues)}`);
  }
  return parsed.data;
}

function spawnRateOf(
  text: string | undefined,
  source: string | undefined,
): { count: number; perMs: number } {
  if (text === undefined) return { ...DEFAULTS.spawnRate };
  const [count, period] = text.split('/');
  return {
    count: Number(count),
    perMs: parseDuration(period ?? '', `${source ?? 'config'}: limits.spawn_rate`),
  };
}

function askFallbackOf(layer: Layer | undefined): 'fail' | 'wait' | undefined {
  if (layer === undefined) return undefined;
  if (layer.value === 'fail' || layer.value === 'wait') return layer.value;
  throw new ArborError(
    'usage',
    `Expected \`${layer.name}\` to be \`fail\` or \`wait\`, got \`${layer.value}\`.`,
  );
}

function dialectOf(layer: Layer): Dialect {
  const parsed = DialectSchema.safeParse(layer.value);
  if (parsed.success) return parsed.data;
  throw new ArborError(
    'usage',
    `Expected \`${layer.name}\` to be \`openai\`, \`anthropic\` or \`openai-responses\`, got \`${layer.value}\`.`,
  );
}

function poolOf(layer: Layer | undefined): number | undefined {
  const value = integer(layer, 0);
  if (value !== undefined && value > MAX_POOL)
    throw new ArborError(
      'usage',
      `Expected \`${layer?.name ?? 'pool'}\` to be at most ${MAX_POOL} children, got ${value}.`,
    );
  return value;
}

function integer(layer: Layer | undefined, minimum: number): number | undefined {
  if (layer === undefined) return undefined;
  const value = Number(layer.value);
  if (!/^\d+$/.test(layer.value.trim()) || !Number.isSafeInteger(value) || value < minimum) {
    const kind = minimum === 0 ? 'a non-negative integer' : 'a positive integer';
    throw new ArborError(
      'usage',
      `Expected \`${layer.name}\` to be ${kind}, got \`${layer.value}\`.`,
    );
  }
  return value;
}

function positiveNumber(layer: Layer | undefined): number | undefined {
  if (layer === undefined) return undefined;
  const value = Number(layer.value);
  if (layer.value.trim() === '' || !Number.isFinite(value) || value <= 0) {
    throw new ArborError(
      'usage',
      `Expected \`${layer.name}\` to be a positive amount of US dollars, got \`${layer.value}\`.`,
    );
  }
  return value;
}

function durationOf(layer: Layer): number {
  return parseDuration(layer.value, layer.name);
}

function budgetOf(
  tokens: number | undefined,
  usd: number | undefined,
  config: ConfigFile | undefined,
): BudgetSettings {
  return {
    ceiling: {
      ...(tokens === undefined ? {} : { tokens }),
      ...(usd === undefined ? {} : { usd }),
    },
    onExcess: config?.budget?.on_excess ?? DEFAULTS.budget.onExcess,
    windows: config?.budget?.window ?? [],
    ...(config?.budget?.provider_limits === undefined
      ? {}
      : { providerLimits: config.budget.provider_limits }),
  };
}

function tracingOf(table: ConfigFile['observability']): TracingSettings {
  return {
    ...(table?.otlp_endpoint === undefined ? {} : { endpoint: table.otlp_endpoint }),
    ...(table?.protocol === undefined ? {} : { protocol: table.protocol }),
    ...(table?.service_name === undefined ? {} : { serviceName: table.service_name }),
    ...(table?.capture_content === undefined ? {} : { captureContent: table.capture_content }),
    ...(table?.trace_url === undefined ? {} : { traceUrl: table.trace_url }),
  };
}
