/**
 * The credential-like strings of an intelligence config that may be invalid (so typed loosely):
 * each endpoint's `api_key` and header values. An error about the config must not quote them.
 */
export function configSecrets(config: unknown): string[] {
  const endpoints = (config as { endpoints?: unknown } | null)?.endpoints;
  if (!Array.isArray(endpoints)) return [];
  const out: string[] = [];
  for (const endpoint of endpoints as { api_key?: unknown; headers?: unknown }[]) {
    if (typeof endpoint.api_key === 'string') out.push(endpoint.api_key);
    if (typeof endpoint.headers === 'object' && endpoint.headers !== null) {
      for (const value of Object.values(endpoint.headers)) {
        if (typeof value === 'string') out.push(value);
      }
    }
  }
  return out;
}
