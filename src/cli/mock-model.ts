import { loadPlaybook, startFakeLlm } from '../testing/fake-llm/index.js';
import type { IntelConfig } from '../protocol/index.js';

/**
 * `--mock-llm`: arbor's scripted model, started in this process for the length of the run, so a
 * newcomer can run arbor without an API key. The run says clearly that the model is scripted.
 */
export async function startMockModel(
  playbookPath: string,
): Promise<{ intelligence: IntelConfig; label: string; close(): Promise<void> }> {
  const playbook = await loadPlaybook(playbookPath);
  const server = await startFakeLlm({ playbook });
  return {
    intelligence: {
      endpoints: [{ url: server.url, dialect: 'openai', headers: {} }],
      model: 'arbor-scripted',
      sampling: {},
      timeout_ms: 120_000,
      retries: 2,
      breaker: { threshold: 3, cooldown_ms: 5_000, cooldown_max_ms: 60_000 },
      prices: {},
    },
    label: `the model is SCRIPTED by ${playbookPath} (arbor mock-llm at ${server.url}); no real LLM is called`,
    close: () => server.close(),
  };
}
