import type { ArborOptions, EndpointOption } from './options.js';

/**
 * The config-file tables (snake_case, as TOML writes them) for an `Arbor`'s options, so the
 * library is validated and resolved by exactly the code `arbor run --config` uses, and its errors
 * name the same keys. Keys given in code (`apiKey`) are not part of it: they are kept aside.
 */
export function configOf(options: ArborOptions): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  const { intelligence, limits, grant, security, budget } = options;
  if (intelligence !== undefined) {
    config.intelligence = compact({
      model: intelligence.model,
      dialect: intelligence.dialect,
      endpoint: intelligence.endpoints.map((endpoint) => endpointTable(endpoint)),
      timeout: intelligence.timeout,
      retries: intelligence.retries,
      swap_policy: intelligence.swapPolicy,
      sampling: intelligence.sampling,
      prices: intelligence.prices,
      breaker:
        intelligence.breaker === undefined
          ? undefined
          : compact({
              threshold: intelligence.breaker.threshold,
              cooldown: intelligence.breaker.cooldown,
              cooldown_max: intelligence.breaker.cooldownMax,
            }),
    });
  }
  if (limits !== undefined)
    config.limits = compact({
      max_steps: limits.maxSteps,
      max_tokens: limits.maxTokens,
      deadline: limits.deadline,
      max_depth: limits.maxDepth,
      max_breadth: limits.maxBreadth,
      max_total: limits.maxTotal,
      max_queued: limits.maxQueued,
      spawn_rate: limits.spawnRate,
    });
  if (grant !== undefined)
    config.grant = compact({
      fs_read: grant.fsRead,
      fs_write: grant.fsWrite,
      exec: grant.exec,
      net: grant.net,
      max_calls: grant.maxCalls,
    });
  if (options.mcp !== undefined) config.mcp = { server: options.mcp };
  if (options.netCredentials !== undefined) config.net = { credential: options.netCredentials };
  if (security !== undefined)
    config.security = compact({
      allow_trifecta: security.allowTrifecta,
      policy: security.policy,
      sandbox: security.sandbox,
      runtime_trifecta: security.runtimeTrifecta,
      sensitive_paths: security.sensitivePaths,
      risk_ask_at: security.riskAskAt,
      untrusted_tools: security.untrustedTools,
    });
  if (budget !== undefined)
    config.budget = compact({
      usd: budget.usd,
      on_excess: budget.onExcess,
      provider_limits: budget.providerLimits,
      window: budget.window,
    });
  if (options.store !== undefined) config.store = { path: options.store };
  return config;
}

/** The keys given in code, by endpoint index. */
export function apiKeysOf(options: ArborOptions): Map<number, string> {
  const keys = new Map<number, string>();
  options.intelligence?.endpoints.forEach((endpoint, index) => {
    if (typeof endpoint !== 'string' && endpoint.apiKey !== undefined)
      keys.set(index, endpoint.apiKey);
  });
  return keys;
}

function endpointTable(endpoint: string | EndpointOption): Record<string, unknown> {
  if (typeof endpoint === 'string') return { url: endpoint };
  return compact({
    url: endpoint.url,
    dialect: endpoint.dialect,
    model: endpoint.model,
    credential: endpoint.credential,
    headers: endpoint.headers,
  });
}

function compact(table: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(table).filter(([, value]) => value !== undefined));
}
