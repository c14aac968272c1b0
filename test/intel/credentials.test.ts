import { describe, expect, it } from 'vitest';
import { resolveCredentials } from '../../src/intel/index.js';
import { isArborError } from '../../src/protocol/index.js';
import { intelConfig } from '../helpers/intel.js';

const URL = 'https://llm.example/v1';

describe('resolveCredentials', () => {
  it('keeps an explicit api_key over everything else', () => {
    const config = intelConfig([{ url: URL, api_key: 'explicit', credential_ref: 'env:OTHER' }]);
    const env = { OTHER: 'from-ref', ARBOR_API_KEY: 'arbor', OPENAI_API_KEY: 'openai' };
    expect(resolveCredentials(config, env).endpoints[0]?.api_key).toBe('explicit');
  });

  it.each(['env:MY_KEY', '{{env:MY_KEY}}'])(
    'resolves credential_ref %s from the environment',
    (ref) => {
      const config = intelConfig([{ url: URL, credential_ref: ref }]);
      const resolved = resolveCredentials(config, { MY_KEY: 'k-1', ARBOR_API_KEY: 'arbor' });
      expect(resolved.endpoints[0]?.api_key).toBe('k-1');
      expect(resolved.endpoints[0]?.credential_ref).toBe(ref);
    },
  );

  it('falls back to ARBOR_API_KEY, then the dialect’s own variable, per endpoint', () => {
    const config = intelConfig([
      { url: URL, dialect: 'openai' },
      { url: URL, dialect: 'anthropic' },
    ]);
    const both = { ARBOR_API_KEY: 'arbor', OPENAI_API_KEY: 'oa', ANTHROPIC_API_KEY: 'an' };
    expect(resolveCredentials(config, both).endpoints.map((e) => e.api_key)).toEqual([
      'arbor',
      'arbor',
    ]);
    const dialectOnly = { OPENAI_API_KEY: 'oa', ANTHROPIC_API_KEY: 'an' };
    expect(resolveCredentials(config, dialectOnly).endpoints.map((e) => e.api_key)).toEqual([
      'oa',
      'an',
    ]);
  });

  it('leaves an endpoint without a key when there is none (local servers need none)', () => {
    const config = intelConfig([URL]);
    expect(resolveCredentials(config, { ARBOR_API_KEY: '' }).endpoints[0]?.api_key).toBeUndefined();
  });

  it('does not change the config it is given', () => {
    const config = intelConfig([URL]);
    resolveCredentials(config, { ARBOR_API_KEY: 'arbor' });
    expect(config.endpoints[0]?.api_key).toBeUndefined();
  });

  it.each([
    [
      'env:MISSING',
      'Endpoint 1: `credential_ref` names the environment variable `MISSING`, which is not set.',
    ],
    [
      '{{secret:VAULT}}',
      'Endpoint 1: cannot resolve `credential_ref` `{{secret:VAULT}}`; expected `env:NAME`.',
    ],
  ])('fails with a config error naming the endpoint for %s', (ref, message) => {
    const config = intelConfig([URL, { url: URL, credential_ref: ref }]);
    let caught: unknown;
    try {
      resolveCredentials(config, { ARBOR_API_KEY: 'sk-should-not-appear' });
    } catch (error) {
      caught = error;
    }
    expect(isArborError(caught, 'config')).toBe(true);
    expect((caught as Error).message).toBe(message);
  });
});
