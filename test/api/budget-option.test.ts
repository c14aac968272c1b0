import { describe, expect, it } from 'vitest';
import { configOf } from '../../src/api/config-of.js';
import { ConfigFileSchema } from '../../src/config/config-file.js';

describe('the library’s budget option', () => {
  it('passes providerLimits on as the config file’s budget.provider_limits', () => {
    const config = configOf({ budget: { onExcess: 'refuse', providerLimits: 'ignore' } });
    expect(config.budget).toEqual({ on_excess: 'refuse', provider_limits: 'ignore' });
    expect(ConfigFileSchema.parse(config).budget?.provider_limits).toBe('ignore');
  });

  it('is refused with the key named when the value is not pace or ignore', () => {
    const config = configOf({ budget: { providerLimits: 'sometimes' as 'pace' } });
    const parsed = ConfigFileSchema.safeParse(config);
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toContain('provider_limits');
  });
});
