import type { ConfigFile } from '../config/index.js';
import { describePriceTable, hasDefaultPrice } from '../supervisor/index.js';

/** One line of `arbor doctor` (the shape of `doctor.ts`'s checks). */
interface PriceCheck {
  name: string;
  status: 'ok' | 'missing' | 'absent';
  detail: string;
}

/** A model the configuration calls and where it is reached. */
interface CalledModel {
  model: string;
  url: string;
  dialect: string;
}

/**
 * The price table: where the default one comes from, its date and size, the user's own prices;
 * then a line for each configured model that has no price, since its calls carry no cost and a
 * money ceiling never trips on them. That line counts as missing when a money ceiling is set
 * (`[budget] usd` or ARBOR_BUDGET_USD), as absent otherwise.
 */
export async function checkPrices(
  config: ConfigFile | undefined,
  env: NodeJS.ProcessEnv,
): Promise<PriceCheck[]> {
  const table = await describePriceTable();
  const own = Object.keys(config?.intelligence?.prices ?? {}).length;
  const checks: PriceCheck[] = [
    {
      name: 'prices',
      status: 'ok',
      detail:
        `default table ${table.package} ${table.version} (published ${table.published}; ` +
        `its data carries no date of its own), ${table.models} models of ${table.providers} providers` +
        (own === 0 ? '' : `; ${own} of yours in [intelligence.prices] over it`),
    },
  ];
  const ceiling = config?.budget?.usd !== undefined || env.ARBOR_BUDGET_USD !== undefined;
  for (const called of calledModels(config, env)) {
    if (Object.hasOwn(config?.intelligence?.prices ?? {}, called.model)) continue;
    if (hasDefaultPrice(called.model, { url: called.url, dialect: called.dialect })) continue;
    checks.push({
      name: `price ${called.model}`,
      status: ceiling ? 'missing' : 'absent',
      detail:
        `no price for \`${called.model}\` at ${called.url} (not in the default table nor in ` +
        `[intelligence.prices]): its calls cost nothing to arbor, so a money ceiling never trips ` +
        `on them; add \`[intelligence.prices.${JSON.stringify(called.model)}]\` (docs/budget.md)`,
    });
  }
  return checks;
}

/** The models the configuration (and ARBOR_INTEL, ARBOR_MODEL, ARBOR_DIALECT) calls, once each. */
function calledModels(config: ConfigFile | undefined, env: NodeJS.ProcessEnv): CalledModel[] {
  const section = config?.intelligence;
  const model = env.ARBOR_MODEL ?? section?.model;
  const dialect = env.ARBOR_DIALECT ?? section?.dialect ?? 'openai';
  const endpoints: { url: string; model?: string | undefined; dialect?: string | undefined }[] =
    env.ARBOR_INTEL !== undefined
      ? env.ARBOR_INTEL.split(',').map((url) => ({ url: url.trim() }))
      : (section?.endpoint ?? section?.endpoints?.map((url) => ({ url })) ?? []);
  const called = new Map<string, CalledModel>();
  for (const endpoint of endpoints) {
    const name = endpoint.model ?? model;
    if (name === undefined) continue;
    const at = { model: name, url: endpoint.url, dialect: endpoint.dialect ?? dialect };
    called.set(`${at.model} ${at.url} ${at.dialect}`, at);
  }
  return [...called.values()];
}
