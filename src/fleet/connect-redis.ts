import { Redis } from 'ioredis';
import { ArborError, redactUrl } from '../protocol/index.js';

/**
 * One connection to the fleet's Redis, connected before it is returned: an unreachable server or a
 * refused password is a clear error here, not a hang on the first command.
 */
export async function connectRedis(url: string, name: string): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: null,
    connectionName: name,
    // Fail the first connection fast; once connected, reconnect for as long as it takes.
    retryStrategy: (times) => Math.min(times * 200, 2_000),
  });
  // ioredis reports connection errors as events too; the caller sees them as failed commands.
  redis.on('error', () => undefined);
  try {
    await Promise.race([
      redis.connect(),
      new Promise((_, reject) =>
        setTimeout(() => {
          reject(new Error('no answer within 5000 ms'));
        }, 5_000).unref(),
      ),
    ]);
    await redis.ping();
  } catch (error) {
    redis.disconnect();
    throw new ArborError(
      'config',
      `Cannot reach the fleet's Redis at ${redactUrl(url)}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  return redis;
}
