import { describe, expect, it } from 'vitest';
import { IntelConfigSchema } from '../../src/protocol/index.js';
import { endpointFacts } from '../../src/telemetry/genai-provider.js';

describe('endpointFacts', () => {
  it.each([
    ['https://api.openai.com/v1', 'openai', 'openai', 'api.openai.com', 443],
    [
      'https://my-res.openai.azure.com/openai/v1',
      'openai',
      'azure.ai.openai',
      'my-res.openai.azure.com',
      443,
    ],
    ['https://api.groq.com/openai/v1', 'openai', 'groq', 'api.groq.com', 443],
    ['https://api.deepseek.com', 'openai', 'deepseek', 'api.deepseek.com', 443],
    ['http://127.0.0.1:11434/v1', 'openai', 'openai', '127.0.0.1', 11434],
    ['https://api.anthropic.com/v1', 'anthropic', 'anthropic', 'api.anthropic.com', 443],
    ['http://[::1]:8080/v1', 'anthropic', 'anthropic', '::1', 8080],
  ])('%s (%s) is provider %s at %s:%d', (url, dialect, provider, address, port) => {
    const intel = IntelConfigSchema.parse({ endpoints: [{ url, dialect }], model: 'm' });
    expect(endpointFacts(intel, 0)).toMatchObject({ provider, address, port, model: 'm' });
  });

  it('takes the endpoint’s own model and sampling over the config’s, and knows no other index', () => {
    const intel = IntelConfigSchema.parse({
      endpoints: [
        { url: 'https://api.openai.com/v1' },
        { url: 'https://api.openai.com/v1', model: 'o4', sampling: { max_output_tokens: 64 } },
      ],
      model: 'm',
      sampling: { max_output_tokens: 1000, temperature: 0.2 },
    });
    expect(endpointFacts(intel, 1)).toMatchObject({
      model: 'o4',
      sampling: { max_output_tokens: 64, temperature: 0.2 },
    });
    expect(endpointFacts(intel, 2)).toBeUndefined();
  });
});
