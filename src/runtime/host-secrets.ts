import { RETIRED_FLEET_KEY_VARIABLE } from '../fleet/fleet-identity.js';
import { REDIS_URL_VARIABLE } from '../fleet/redis-url.js';
import { urlSecrets } from '../protocol/index.js';

/**
 * The credentials of the process that runs arbor, beyond a run's own (its intelligence, MCP
 * servers and peers, which each minted payload adds): the retired shared fleet key, should it
 * still be set, and the password of
 * the fleet's Redis URL, from the environment or the resolved `fleetUrl`. A model that read one
 * (from `/proc`, a file, a tool's output) and echoes it must not get it shown.
 */
export function hostSecrets(env: NodeJS.ProcessEnv, fleetUrl?: string): string[] {
  const out: string[] = [];
  const key = env[RETIRED_FLEET_KEY_VARIABLE];
  if (key !== undefined && key !== '') out.push(key);
  const redis = env[REDIS_URL_VARIABLE];
  if (redis !== undefined) out.push(...urlSecrets(redis));
  if (fleetUrl !== undefined) out.push(...urlSecrets(fleetUrl));
  return out;
}
