// A CLI command that revokes a key or changes a plan writes the store from its own process; with
// REDIS_URL set it also tells the running nodes, so they drop their cached keys at once instead of
// when the cache entries expire (API_KEY_CACHE_MS).
import { Redis } from 'ioredis';
import type { Config } from '../core/config.ts';
import { channels } from '../core/bus.ts';

export async function announceCredentialsChanged(config: Pick<Config, 'redisUrl' | 'redisPrefix'>): Promise<void> {
  if (config.redisUrl === null) return;
  const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 1, connectionName: 'readybell-cli' });
  redis.on('error', () => {});
  try {
    await redis.publish(`${config.redisPrefix}bus:${channels.auth}`, JSON.stringify({ type: 'credentials.changed' }));
  } finally {
    redis.disconnect();
  }
}
