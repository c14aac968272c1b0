import { ArborError } from '../protocol/index.js';
import { privateKeyFile } from '../fleet/key-file.js';
import { fleetRedisUrl } from '../fleet/redis-url.js';
import type { QueueTable } from './queue-table.js';

/** The fleet a run puts `queue` nodes on, validated (its keys are read when it connects). */
export interface FleetSettings {
  /** The Redis URL, possibly with a password (from the environment): never print it. */
  url: string;
  /** The base queue name. */
  queue: string | undefined;
  /** Labels every job needs. */
  labels: string[];
  /** Attempts in all for a node whose worker is lost. */
  attempts: number | undefined;
  /** The supervisor's private key file (`ARBOR_FLEET_PRIVATE_KEY_FILE`, else `[queue] key`). */
  keyFile: string | undefined;
  /** The workers admitted (`[[queue.admit]]`), as written. */
  admit: { name: string; public_key: string }[];
  /** The config file that admits them: read again when it changes, so a removal revokes. */
  admitFile: string | undefined;
}

/**
 * The run's fleet, when it has one: under `--provider queue`, or when `--redis` or `[queue] redis`
 * names it (then `subagent.run { provider: "queue" }` may use it). `ARBOR_REDIS_URL` alone only
 * says where the fleet is. `configFile` is the file `table` was read from, if any.
 */
export function resolveFleet(
  flag: string | undefined,
  table: QueueTable | undefined,
  env: NodeJS.ProcessEnv,
  provider: string | undefined,
  configFile?: string,
): FleetSettings | undefined {
  const url = fleetRedisUrl({ flag, config: table?.redis }, env);
  const wanted = provider === 'queue' || flag !== undefined || table?.redis !== undefined;
  if (!wanted) return undefined;
  if (url === undefined)
    throw new ArborError(
      'usage',
      '`--provider queue` runs nodes on fleet workers and needs their Redis: give `--redis URL` (no password), `ARBOR_REDIS_URL`, or `[queue] redis` in `--config`.',
    );
  return {
    url,
    queue: table?.queue,
    labels: table?.labels ?? [],
    attempts: table?.attempts,
    keyFile: privateKeyFile({ config: table?.key }, env),
    admit: table?.admit ?? [],
    admitFile: table?.admit === undefined ? undefined : configFile,
  };
}
