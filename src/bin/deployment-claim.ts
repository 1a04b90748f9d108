import { createHash } from 'node:crypto';
import type { AppContext } from '../transport/context';
import { StartupError } from './startup-error';

/**
 * Refuses a Redis whose keys under KEY_PREFIX another deployment wrote. A deployment is known by
 * the key its tokens are checked with (a fingerprint, never the secret): two services sharing a
 * prefix with different secrets would mix their users' money. The first start claims the prefix.
 */
export async function claimPrefix(ctx: Pick<AppContext, 'config' | 'redis' | 'keys'>): Promise<void> {
  const tokenKey = ctx.config.jwtSecret ?? ctx.config.jwtPublicKey ?? '';
  const mine = createHash('sha256').update(`exchange-deployment\0${tokenKey}`).digest('hex').slice(0, 16);
  const key = ctx.keys.deployment();
  await ctx.redis.set(key, mine, 'NX');
  const holder = await ctx.redis.get(key);
  if (holder !== mine) {
    throw new StartupError(
      `the Redis at ${ctx.config.redisUrl} holds another deployment's keys under KEY_PREFIX=${ctx.config.keyPrefix} ` +
        '(written by a service with another JWT secret): set KEY_PREFIX to a prefix of your own or REDIS_URL to another Redis ' +
        `(after rotating the secret of this same deployment, DEL ${key})`,
    );
  }
}
