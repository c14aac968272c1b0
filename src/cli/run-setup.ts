import { resolveCredentials } from '../intel/index.js';
import type { IntelConfig } from '../protocol/index.js';
import { resolvePeerSecrets, resolveServerSecrets } from '../supervisor/spawn/server-secrets.js';
import type { SqliteStore } from '../store/index.js';
import {
  failResponder,
  firstResponder,
  storeResponder,
  type HumanResponder,
} from '../supervisor/index.js';
import { loadConfigFile } from '../config/index.js';
import { startMockModel } from './mock-model.js';
import type { CliIo } from './output.js';
import { resolveRunSettings, type RunSettings } from '../config/index.js';
import { terminalResponder } from './terminal-responder.js';

/** What `arbor run` and `arbor plan run` share before the supervisor starts. */

/**
 * Resolves the run's intelligence (the configured endpoints, or the mock model `--mock-llm`
 * starts) and the MCP servers' secrets, then calls `body`; the mock model is closed after.
 */
export async function withIntelligence<T>(
  settings: RunSettings,
  env: NodeJS.ProcessEnv,
  body: (intelligence: IntelConfig, mockLabel: string | undefined) => Promise<T>,
): Promise<T> {
  const mock = settings.mockLlm === undefined ? undefined : await startMockModel(settings.mockLlm);
  try {
    const intelligence = resolveCredentials(
      settings.intelligence ?? mock?.intelligence ?? missing(),
      env,
    );
    settings.mcpServers = await resolveServerSecrets(settings.mcpServers, env);
    settings.a2aPeers = await resolvePeerSecrets(settings.a2aPeers ?? [], env);
    return await body(intelligence, mock?.label);
  } finally {
    await mock?.close();
  }
}

/**
 * Who answers questions agents ask: the terminal when `arbor run` has one to itself (not a warm
 * session reading stdin), else the fallback — fail at once, or wait for `arbor gate answer`. Any
 * question can also be answered from another shell while it waits.
 */
export function humanResponder(
  settings: RunSettings,
  io: CliIo,
  store: SqliteStore,
): HumanResponder {
  const interactive = (io.stdin as { isTTY?: boolean }).isTTY === true && !settings.warm;
  if (interactive)
    return firstResponder([terminalResponder(io.stdin, io.stderr), storeResponder(store)]);
  return settings.askFallback === 'wait' ? storeResponder(store) : failResponder;
}

export function reloadIntelligence(
  settings: RunSettings,
  env: NodeJS.ProcessEnv,
): IntelConfig | undefined {
  if (settings.configPath === undefined) return undefined;
  loadConfigFile(settings.configPath);
  const fresh = resolveRunSettings(settings.instruction, { config: settings.configPath }, env);
  return fresh.intelligence === undefined ? undefined : resolveCredentials(fresh.intelligence, env);
}

function missing(): never {
  throw new Error('no intelligence config and no mock model');
}
