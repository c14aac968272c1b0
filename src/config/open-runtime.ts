import { openFleet, type OpenFleet } from './open-fleet.js';
import { netCredentialSecrets, urlSecrets } from '../protocol/index.js';
import { Runtime, type RuntimeOptions } from '../runtime/index.js';
import { loadPriceTable } from '../supervisor/index.js';
import { openTracing } from '../telemetry/open-tracing.js';
import type { RunSettings } from './run-settings.js';

/** What the host brings besides the settings: its tools, its child command, its own secrets. */
type RuntimeHost = Pick<
  RuntimeOptions,
  'cwd' | 'hostTools' | 'childCommand' | 'secrets' | 'parkAfterMs'
>;

/**
 * The one way a runtime is opened from resolved settings (`arbor run`, `arbor plan run|resume`,
 * the library's `Arbor` and so `arbor serve`): tracing and the fleet when the settings or the
 * environment name them (the fleet's Redis password and the values of `http.fetch` credentials
 * join the secrets no run may show), then the store, the pool and supervision timing from the
 * environment. What opened before a failure is closed again. It sits in config/, above runtime/,
 * because it reads the settings config/ resolves.
 */
export async function openRuntime(
  settings: Pick<RunSettings, 'dbPath' | 'pool' | 'tracing' | 'fleet' | 'netCredentials'>,
  env: NodeJS.ProcessEnv,
  host: RuntimeHost = {},
): Promise<Runtime> {
  // The default price table loads while tracing and the fleet open: a run's root then starts in
  // the tick `runRoot` is called (see `Supervisor.runRoot`).
  const prices = loadPriceTable();
  prices.catch(() => undefined);
  const tracing = await openTracing(env, settings.tracing);
  let fleet: OpenFleet | undefined;
  try {
    fleet = await openFleet(settings.fleet, env);
    await prices;
    return new Runtime({
      ...host,
      storePath: settings.dbPath,
      env,
      pool: settings.pool,
      secrets: [
        ...(host.secrets ?? []),
        ...(settings.fleet === undefined ? [] : urlSecrets(settings.fleet.url)),
        ...(fleet?.secrets ?? []),
        // From the first event on, even where no node's `net` allows the credential's host.
        ...netCredentialSecrets(settings.netCredentials ?? []),
      ],
      ...(tracing === undefined ? {} : { tracing }),
      ...(fleet === undefined ? {} : { fleet }),
    });
  } catch (error) {
    await fleet?.close();
    await tracing?.shutdown(0);
    throw error;
  }
}
