import type { RedisClient } from '../platform/redis/connection';
import type { EngineShards } from '../platform/redis/engine-shards';

/**
 * Each user's home shard: where the money of record lives (deposits, wallet, clientOrderId
 * registry). Recorded at first use and never moved, so it is cached for the life of the process.
 * A user who already has money or orders on shard 0 (every user from before shards) stays there;
 * a new user is spread by a hash of the id. Growing ENGINE_SHARDS moves nobody: the record wins.
 */
export class HomeRegistry {
  private readonly known = new Map<string, number>();

  constructor(
    private readonly redis: RedisClient,
    private readonly shards: EngineShards,
  ) {}

  async of(userId: string): Promise<number> {
    if (this.shards.count === 1) return 0;
    const hit = this.known.get(userId);
    if (hit !== undefined) return hit;
    const key = this.shards.keys(0).home(userId);
    let home = await this.redis.get(key);
    if (home === null) {
      const chosen = (await this.hasShardZeroData(userId)) ? 0 : hashShard(userId, this.shards.count);
      // NX: of two first uses at once, the first record stands and both read it
      home = (await this.redis.set(key, String(chosen), 'NX', 'GET')) ?? String(chosen);
    }
    const shard = Number(home);
    this.known.set(userId, shard);
    return shard;
  }

  private async hasShardZeroData(userId: string): Promise<boolean> {
    const k = this.shards.keys(0);
    const found = await this.redis.exists(
      k.walletAvailable(userId), k.walletReserved(userId), k.userOrders(userId, 'spot'),
      k.userOrders(userId, 'futures'), k.userFuturesAccounts(userId),
    );
    return found > 0;
  }
}

/** FNV-1a of the id, modulo the shard count. */
function hashShard(userId: string, count: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < userId.length; i++) h = Math.imul(h ^ userId.charCodeAt(i), 0x01000193) >>> 0;
  return h % count;
}
