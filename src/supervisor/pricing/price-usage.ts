import type { IntelConfig, Usage } from '../../protocol/index.js';
import { defaultCost } from './default-price-table.js';
import { overrideCost } from './override-price.js';

/** Which call a usage report is of: the model that answered and the endpoint it answered on. */
interface Answered {
  /** The model as the server named it. */
  model?: string | undefined;
  /** The endpoint's index in the node's intelligence. */
  endpoint?: number | undefined;
  /** The model the call named, when it is not the answering one (a budget degrade's). */
  modelAsked?: string | undefined;
}

/**
 * Prices one usage report in the supervisor. A cost the sender gives is kept (an A2A peer prices
 * its own calls, with prices arbor does not know). Otherwise the names tried are the model that
 * answered, then the model the call named (a budget degrade's cheaper model; else, for a call on
 * a known endpoint, the model asked of that endpoint), since servers often answer with a dated
 * snapshot of the requested alias. For each name in turn, the user's price
 * (`[intelligence.prices]`) is taken first, then the default table's for the endpoint's provider.
 * No price, no `cost_usd`: a money ceiling cannot see that call (`arbor doctor` warns of it).
 */
export function priceUsage(usage: Usage, answered: Answered, intelligence: IntelConfig): Usage {
  if (usage.cost_usd !== undefined) return usage;
  const endpoint =
    answered.endpoint === undefined ? undefined : intelligence.endpoints[answered.endpoint];
  const names = [
    ...(answered.model === undefined ? [] : [answered.model]),
    ...(answered.modelAsked !== undefined
      ? [answered.modelAsked]
      : endpoint === undefined
        ? []
        : [endpoint.model ?? intelligence.model]),
  ];
  const cost = costOf(usage, names, intelligence, endpoint);
  return cost === undefined ? usage : { ...usage, cost_usd: cost };
}

function costOf(
  usage: Usage,
  names: readonly string[],
  intelligence: IntelConfig,
  endpoint: IntelConfig['endpoints'][number] | undefined,
): number | undefined {
  const hint = endpoint === undefined ? {} : { url: endpoint.url, dialect: endpoint.dialect };
  for (const name of names) {
    const price = Object.hasOwn(intelligence.prices, name) ? intelligence.prices[name] : undefined;
    const cost = price === undefined ? defaultCost(usage, name, hint) : overrideCost(usage, price);
    if (cost !== undefined) return cost;
  }
  return undefined;
}
