import type { Endpoint, IntelConfig, Sampling } from '../protocol/index.js';

/**
 * Hosts whose provider the GenAI conventions name (`gen_ai.provider.name`), for endpoints that
 * speak a dialect arbor shares with many servers (OpenAI's chat completions).
 */
const PROVIDER_BY_HOST: readonly [RegExp, string][] = [
  [/(^|\.)openai\.azure\.com$/, 'azure.ai.openai'],
  [/(^|\.)api\.deepseek\.com$/, 'deepseek'],
  [/(^|\.)api\.groq\.com$/, 'groq'],
  [/(^|\.)api\.mistral\.ai$/, 'mistral_ai'],
  [/(^|\.)api\.x\.ai$/, 'x_ai'],
  [/(^|\.)api\.perplexity\.ai$/, 'perplexity'],
  [/(^|\.)api\.moonshot\.ai$/, 'moonshot_ai'],
  [/^generativelanguage\.googleapis\.com$/, 'gcp.gemini'],
  [/^aiplatform\.googleapis\.com$|-aiplatform\.googleapis\.com$/, 'gcp.vertex_ai'],
];

/** What the conventions say of an endpoint: its provider and the server it is reached at. */
export interface EndpointFacts {
  provider: string;
  /** The model a call asks this endpoint for, unless the loop chose another. */
  model: string;
  address: string;
  port: number;
  /** The sampling the endpoint is called with: the config's, under the endpoint's own. */
  sampling: Sampling;
}

/**
 * The provider, model and server of an endpoint of a node's intelligence (by index), as the
 * conventions name them: a provider the host identifies (Azure OpenAI, DeepSeek, Groq, …), else
 * the dialect's own (`openai`, `anthropic`), which is the telemetry flavour of every server
 * speaking it. Undefined for an index the config does not have.
 */
export function endpointFacts(intel: IntelConfig, index: number): EndpointFacts | undefined {
  const endpoint = intel.endpoints[index];
  if (endpoint === undefined) return undefined;
  const url = new URL(endpoint.url);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return {
    provider: providerOf(endpoint, host),
    model: endpoint.model ?? intel.model,
    address: host,
    port: url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port),
    sampling: { ...intel.sampling, ...endpoint.sampling },
  };
}

function providerOf(endpoint: Endpoint, host: string): string {
  // Chat completions and the Responses API alike are OpenAI's API, whoever serves it.
  if (!endpoint.dialect.startsWith('openai')) return endpoint.dialect;
  return PROVIDER_BY_HOST.find(([pattern]) => pattern.test(host))?.[1] ?? 'openai';
}
