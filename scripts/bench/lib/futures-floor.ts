import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type Redis from 'ioredis';
import type { ChainableCommander } from 'ioredis';
import type { CreateFuturesInput } from '../../../src/futures/futures-engine';

const LIBRARY = readFileSync(join(__dirname, 'futures-floor.lua'), 'utf8');

/**
 * The floor of a futures order (futures-floor.lua): only the commands createFuturesOrders cannot do
 * without, for the same orders, keys of its own under `prefix`. What it costs bounds what any
 * version of the engine's script can reach while it keeps the same data in Redis.
 */
export class FuturesFloor {
  private op = 0;
  private readonly market: string[];

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {
    this.market = ['bids', 'asks', 'lvl', 'orderIds', 'tradeIds', 'events', 'seq', 'fees', 'liq', 'trades'].map((k) => prefix + k);
  }

  /** Loads the floor's functions and opens its accounts, funded as the bench's are. */
  async prepare(accountIds: string[]): Promise<void> {
    await this.redis.function('LOAD', 'REPLACE', LIBRARY);
    for (const id of accountIds) {
      await this.redis.hset(`${this.prefix}facct:${id}`, 'currency', 'USDT', 'lev', '10', 'balance', '10000000000000', 'locked', '0');
    }
  }

  /** Adds one call of the floor for `orders` (limit orders): resting ones, or crossing ones that each fill one maker. */
  queue(p: ChainableCommander, kind: 'resting' | 'crossing', orders: CreateFuturesInput[]): void {
    const keys = [`${this.prefix}op:${this.op++}`, ...this.market];
    const args: string[] = [this.prefix];
    for (const o of orders) {
      keys.push(`${this.prefix}facct:${o.accountId}`, `${this.prefix}facctorders:${o.accountId}`);
      args.push(o.accountId, o.side, o.priceTicks as string, o.amountLots);
    }
    p.fcall(kind === 'resting' ? 'futuresFloorResting' : 'futuresFloorCrossing', keys.length, ...keys, ...args);
  }
}
