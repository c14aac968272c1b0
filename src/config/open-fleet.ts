import type { FleetSettings } from './fleet-settings.js';
import type { FleetPort } from '../supervisor/index.js';
import { FleetKey } from '../fleet/fleet-key.js';

/** A connected fleet a runtime owns: closed with it. */
export interface OpenFleet extends FleetPort {
  close(): Promise<void>;
}

/**
 * Connects the run's fleet when its settings name one: the key from `ARBOR_FLEET_KEY` (refused
 * without it), then Redis (an unreachable server is an error now, not at the first node). BullMQ
 * is loaded only here, so runs without a fleet never pay for it.
 */
export async function openFleet(
  settings: FleetSettings | undefined,
  env: NodeJS.ProcessEnv,
): Promise<OpenFleet | undefined> {
  if (settings === undefined) return undefined;
  const key = FleetKey.fromEnv(env);
  const { Fleet } = await import('../fleet/fleet.js');
  return Fleet.connect({
    url: settings.url,
    key,
    labels: settings.labels,
    ...(settings.queue === undefined ? {} : { queue: settings.queue }),
    ...(settings.attempts === undefined ? {} : { attempts: settings.attempts }),
  });
}
