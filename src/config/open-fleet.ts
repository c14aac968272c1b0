import type { FleetSettings } from './fleet-settings.js';
import type { FleetPort } from '../supervisor/index.js';
import { ArborError } from '../protocol/index.js';
import { AdmittedWorkers, type AdmittedWorker } from '../fleet/admitted-workers.js';
import { FleetPublicKey, RETIRED_FLEET_KEY_VARIABLE } from '../fleet/fleet-identity.js';
import { readPrivateKeyFile } from '../fleet/key-file.js';
import { loadConfigFile } from './config-file.js';

/** A connected fleet a runtime owns: closed with it. */
export interface OpenFleet extends FleetPort {
  /** What the supervisor's private key looks like as text: no run may show it. */
  readonly secrets: readonly string[];
  close(): Promise<void>;
}

/**
 * Connects the run's fleet when its settings name one: the supervisor's private key (refused when
 * missing, or when its file may be read by others) and the workers it admits (refused when none
 * is), then Redis (an unreachable server is an error now, not at the first node). BullMQ is loaded
 * only here, so runs without a fleet never pay for it.
 */
export async function openFleet(
  settings: FleetSettings | undefined,
  env: NodeJS.ProcessEnv,
): Promise<OpenFleet | undefined> {
  if (settings === undefined) return undefined;
  if (settings.keyFile === undefined) throw missingKey(env);
  const identity = readPrivateKeyFile(settings.keyFile);
  const admitted = admittedWorkers(settings);
  if (admitted.size === 0)
    throw new ArborError(
      'config',
      'The fleet admits no worker: list each one in the config under `[[queue.admit]]` (`name`, and `public_key` as `arbor worker keygen` printed it on that worker). See docs/scale-out.md.',
    );
  const { Fleet } = await import('../fleet/fleet.js');
  return Fleet.connect({
    url: settings.url,
    identity,
    admitted,
    labels: settings.labels,
    ...(settings.queue === undefined ? {} : { queue: settings.queue }),
    ...(settings.attempts === undefined ? {} : { attempts: settings.attempts }),
  });
}

/** The admitted workers, kept in step with the config file that lists them. */
function admittedWorkers(settings: FleetSettings): AdmittedWorkers {
  const file = settings.admitFile;
  return new AdmittedWorkers(
    admittedOf(settings.admit),
    file === undefined
      ? undefined
      : { file, read: (path) => admittedOf(loadConfigFile(path).queue?.admit ?? []) },
  );
}

function admittedOf(entries: FleetSettings['admit']): AdmittedWorker[] {
  return entries.map((entry) => ({
    name: entry.name,
    key: FleetPublicKey.parse(entry.public_key),
  }));
}

/** No private key named: what to do, and a word on the retired shared key if it is still set. */
function missingKey(env: NodeJS.ProcessEnv): ArborError {
  const how =
    'make a key pair with `arbor worker keygen --out FILE` and name it with `[queue] key = "file:FILE"` or `ARBOR_FLEET_PRIVATE_KEY_FILE`; admit each worker\'s public key under `[[queue.admit]]`, and give the workers this key\'s public half (`arbor worker --supervisor-key`). See docs/scale-out.md.';
  const retired = env[RETIRED_FLEET_KEY_VARIABLE];
  return new ArborError(
    'config',
    retired !== undefined && retired !== ''
      ? `\`${RETIRED_FLEET_KEY_VARIABLE}\` is set, but the fleet's shared key is retired: the supervisor and each worker now have key pairs of their own. For the supervisor, ${how} Then unset \`${RETIRED_FLEET_KEY_VARIABLE}\`.`
      : `The fleet needs the supervisor's private key: ${how}`,
  );
}
