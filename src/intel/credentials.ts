import { ArborError, type Dialect, type Endpoint, type IntelConfig } from '../protocol/index.js';

/** The variable each dialect's own tools read, tried after `ARBOR_API_KEY`. */
const DIALECT_KEY_VARIABLE: Record<Dialect, string> = {
  openai: 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
  'openai-responses': 'OPENAI_API_KEY',
};

/** `env:NAME` or `{{env:NAME}}`. */
const ENV_REFERENCE = /^(?:env:([A-Za-z_][A-Za-z0-9_]*)|\{\{env:([A-Za-z_][A-Za-z0-9_]*)\}\})$/;

type Env = Readonly<Record<string, string | undefined>>;

function present(value: string | undefined): value is string {
  return value !== undefined && value !== '';
}

function resolveEndpoint(endpoint: Endpoint, index: number, env: Env): Endpoint {
  if (endpoint.api_key !== undefined) return endpoint;
  if (endpoint.credential_ref !== undefined) {
    const match = ENV_REFERENCE.exec(endpoint.credential_ref);
    const name = match?.[1] ?? match?.[2];
    if (name === undefined) {
      throw new ArborError(
        'config',
        `Endpoint ${index}: cannot resolve \`credential_ref\` \`${endpoint.credential_ref}\`; expected \`env:NAME\`.`,
        { details: { endpointIndex: index } },
      );
    }
    const value = env[name];
    if (!present(value)) {
      throw new ArborError(
        'config',
        `Endpoint ${index}: \`credential_ref\` names the environment variable \`${name}\`, which is not set.`,
        { details: { endpointIndex: index, variable: name } },
      );
    }
    return { ...endpoint, api_key: value };
  }
  const fallback = [env.ARBOR_API_KEY, env[DIALECT_KEY_VARIABLE[endpoint.dialect]]].find(present);
  // No credential at all is allowed: local servers (Ollama, vLLM, arbor mock-llm) need none.
  return fallback === undefined ? endpoint : { ...endpoint, api_key: fallback };
}

/**
 * Fills in each endpoint's `api_key`: an explicit key wins; then `credential_ref` (`env:NAME`),
 * which must resolve; then `ARBOR_API_KEY`, then `OPENAI_API_KEY` or `ANTHROPIC_API_KEY` by the
 * endpoint's dialect. Returns a new config; the input is not changed. Error messages name the
 * endpoint and the variable, never a value.
 */
export function resolveCredentials(config: IntelConfig, env: Env): IntelConfig {
  return {
    ...config,
    endpoints: config.endpoints.map((endpoint, index) => resolveEndpoint(endpoint, index, env)),
  };
}
