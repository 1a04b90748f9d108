import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type Redis from 'ioredis';
import type { ChainableCommander } from 'ioredis';
import { scales, type Pair } from '../../../src/domain/market';
import type { PlaceSpotInput } from '../../../src/spot/spot-engine';

const LIBRARY = readFileSync(join(__dirname, 'spot-floor.lua'), 'utf8');

const MARKET = ['bids', 'asks', 'levels:bids', 'levels:asks', 'lvl:bids', 'lvl:asks', 'orderIds', 'tradeIds', 'events', 'seq', 'fees', 'last', 'trades', 'tradetimes'];

/**
 * The floor of a spot order (spot-floor.lua): only the commands placeSpotOrders cannot do without,
 * for the same orders, keys of its own under `prefix`. The engine's cost reads against it.
 */
export class SpotFloor {
  private op = 0;
  private readonly market: string[];
  private readonly args: string[];

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    pair: Pair,
  ) {
    this.market = MARKET.map((k) => prefix + k);
    const { quoteScale, baseScale } = scales(pair);
    this.args = [prefix, String(quoteScale), String(baseScale)];
  }

  /** Loads the floor's functions and funds `users` as the bench does (both currencies, far more than the flow needs). */
  async prepare(users: string[]): Promise<void> {
    await this.redis.function('LOAD', 'REPLACE', LIBRARY);
    for (const u of users) await this.redis.hset(`${this.prefix}wallet:${u}:avail`, 'USDT', '1000000000000000', 'BTC', '1000000000000000');
  }

  /** Adds one call of the floor for `orders` (limit orders): resting ones, or crossing ones that each fill one maker whole. */
  queue(p: ChainableCommander, kind: 'resting' | 'crossing', orders: PlaceSpotInput[]): void {
    const keys = [`${this.prefix}op:${this.op++}`, ...this.market];
    const args = [...this.args, String(orders[0].timestamp)];
    for (const o of orders) {
      const u = o.userId;
      keys.push(`${this.prefix}wallet:${u}:avail`, `${this.prefix}wallet:${u}:rsv`, `${this.prefix}uorders:${u}`, `${this.prefix}uopen:${u}`);
      args.push(u, o.side, o.priceTicks ?? '', o.amountLots ?? '');
    }
    p.fcall(kind === 'resting' ? 'spotFloorResting' : 'spotFloorCrossing', keys.length, ...keys, ...args);
  }
}
