import { openFleet, type OpenFleet } from '../fleet/open-fleet.js';
import { urlSecrets } from '../protocol/index.js';
import { openTracing, type TracingSettings } from '../telemetry/tracing.js';
import { Runtime, type RuntimeOptions } from './runtime.js';

/** What opening a runtime takes of the resolved settings (a `RunSettings` has all of it). */
export interface RuntimeSettings {
  /** The store's path, or `:memory:`. */
  dbPath: string;
  /** Process children a pool keeps waiting, at most, following demand (0: no pool). */
  pool: number;
  /** `[observability]`: where traces go when the environment does not say. */
  tracing?: TracingSettings | undefined;
  /** The fleet `queue` nodes run on, when the settings name one (see `openFleet`). */
  fleet?: Parameters<typeof openFleet>[0];
}

/** What the host brings besides the settings: its tools, its child command, its own secrets. */
export type RuntimeHost = Pick<RuntimeOptions, 'cwd' | 'hostTools' | 'childCommand' | 'secrets'>;

/**
 * The one way a runtime is opened (`arbor run`, `arbor plan run|resume`, the library's `Arbor`
 * and so `arbor serve`): tracing and the fleet when the settings or the environment name them
 * (the fleet's Redis password joins the secrets no run may show), then the store, the pool and
 * supervision timing from the environment. What opened before a failure is closed again.
 */
export async function openRuntime(
  settings: RuntimeSettings,
  env: NodeJS.ProcessEnv,
  host: RuntimeHost = {},
): Promise<Runtime> {
  const tracing = await openTracing(env, settings.tracing);
  let fleet: OpenFleet | undefined;
  try {
    fleet = await openFleet(settings.fleet, env);
    return new Runtime({
      ...host,
      storePath: settings.dbPath,
      env,
      pool: settings.pool,
      secrets: [
        ...(host.secrets ?? []),
        ...(settings.fleet === undefined ? [] : urlSecrets(settings.fleet.url)),
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
