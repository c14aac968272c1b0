import { completeRequest, meetGrant } from '../authority/index.js';
import { ArborError, type Caveats } from '../protocol/index.js';
import type { RunConfig } from '../runtime/index.js';

/**
 * A run's config narrowed by its own options: the grant met with what the run asks for, and the
 * tree's ceilings lowered to what it asks for. Nothing here can widen what the instance allows.
 */
export function narrowRun(
  config: RunConfig,
  narrow: Partial<Caveats> | undefined,
  budget: { tokens?: number; usd?: number } | undefined,
  cwd: string,
): RunConfig {
  const grant =
    narrow === undefined ? config.grant : meetGrant(config.grant, completeRequest(narrow), { cwd });
  if (budget === undefined) return { ...config, grant };
  const ceiling = { ...config.budget.ceiling };
  const lower = (axis: 'tokens' | 'usd', value: number | undefined): void => {
    if (value === undefined) return;
    if (!(value > 0) || (axis === 'tokens' && !Number.isInteger(value)))
      throw new ArborError(
        'config',
        `Expected \`budget.${axis}\` to be a positive ${axis === 'tokens' ? 'integer' : 'number'}, got \`${value}\`.`,
      );
    ceiling[axis] = Math.min(ceiling[axis] ?? Infinity, value);
  };
  lower('tokens', budget.tokens);
  lower('usd', budget.usd);
  return { ...config, grant, budget: { ...config.budget, ceiling } };
}
