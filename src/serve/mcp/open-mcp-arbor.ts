import { Arbor } from '../../api/arbor.js';
import type { RunSettings } from '../../config/index.js';
import type { IntelConfig } from '../../protocol/index.js';
import type { SqliteStore } from '../../store/index.js';
import type { McpCaps } from './mcp-caps.js';

/**
 * The `Arbor` of `arbor mcp`: the run settings with the caps as its own grant and ceilings, so a
 * call that asks for nothing gets the caps, and one that asks for more cannot get past them.
 */
export function openMcpArbor(
  settings: RunSettings,
  caps: McpCaps,
  intelligence: IntelConfig,
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<{ arbor: Arbor; store: SqliteStore }> {
  const ceiling = {
    ...(caps.tokens === undefined ? {} : { tokens: caps.tokens }),
    ...(caps.usd === undefined ? {} : { usd: caps.usd }),
  };
  const base: RunSettings = {
    ...settings,
    grant: caps.grant,
    deadlineMs: caps.deadlineMs,
    budget: { ...settings.budget, ceiling },
  };
  return Arbor.withSettings({ base, intelligence, cwd }, env);
}
