import type { RedisClient, RedisState } from '../../src/redis/index.js';

/** Resolves once `client` is in `state` (at once when it already is). */
export function reach(client: RedisClient, state: RedisState): Promise<void> {
  if (client.state === state) return Promise.resolve();
  return new Promise((resolve) => {
    const stop = client.onStateChange((change) => {
      if (change.state !== state) return;
      stop();
      resolve();
    });
  });
}
