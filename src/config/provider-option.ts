import { ArborError } from '../protocol/index.js';
import { PROVIDER_NAMES, type ProviderName } from '../supervisor/index.js';

/**
 * `--provider` (or `ARBOR_PROVIDER`): how a command's agents run. One parser for every command,
 * whose error names where the value came from and what this command takes.
 */
export function providerOption(
  layer: { value: string; name: string } | undefined,
  allowed: readonly ProviderName[],
): ProviderName {
  if (layer === undefined) return 'process';
  const value = layer.value.trim();
  if ((allowed as readonly string[]).includes(value)) return value as ProviderName;
  const known = (PROVIDER_NAMES as readonly string[]).includes(value);
  const list = allowed.map((name) => `\`${name}\``).join(' or ');
  throw new ArborError(
    'usage',
    `Expected \`${layer.name}\` to be ${list}, got \`${layer.value}\`${known ? ' (not for this command)' : ''}.`,
  );
}
