import { fromMinor, fitsEngine, minorString, toMinorDown } from '../domain/decimal';
import { badRequest, rejected } from '../domain/errors';
import type { MarketStore } from '../markets';
import { unwrap, type ScriptReply } from '../platform/redis/reply';
import type { RedisClient } from '../platform/redis/connection';
import type { EngineShards } from '../platform/redis/engine-shards';
import type { Scripts } from '../platform/redis/scripts';
import type { HomeRegistry } from './home-registry';
import { mergedBalances, walletParts, type MinorBalances, type WalletParts } from './merged-balances';

export interface BalanceDto {
  currencyCode: string;
  available: number;
  reserved: number;
}

/** Wallet balances and deposits; the money of record is on each user's home shard. */
export class WalletService {
  constructor(
    private readonly redis: RedisClient,
    private readonly shards: EngineShards,
    private readonly scripts: Scripts,
    private readonly markets: MarketStore,
    private readonly homes: HomeRegistry,
    /** MAXLEN of the user event stream a deposit appends to. */
    private readonly streamMaxLen: number,
  ) {}

  async deposit(userId: string, currencyCode: string, amount: number): Promise<BalanceDto> {
    const currency = await this.markets.getCurrency(currencyCode);
    if (!currency) {
      throw badRequest('UNKNOWN_CURRENCY', `Unknown currency ${currencyCode}`, [
        { path: 'currencyCode', message: 'no such currency' },
      ]);
    }
    const minor = toMinorDown(amount, currency.decimals);
    if (!fitsEngine(minor)) throw rejected('BALANCE_TOO_LARGE', 'Amount exceeds what the engine holds exactly');
    if (minor.lte(0)) throw rejected('AMOUNT_TOO_SMALL', `amount rounds to zero at ${currency.decimals} decimals`);
    const home = this.shards.keys(await this.homes.of(userId));
    unwrap(
      await this.scripts.runOnceFor<ScriptReply>(
        'deposit',
        [home.walletAvailable(userId), home.userEvents(), home.deposits()],
        [currencyCode, minorString(minor), userId, Date.now(), this.streamMaxLen],
        home,
      ),
    );
    return (await this.balances(userId)).find((b) => b.currencyCode === currencyCode) as BalanceDto;
  }

  /** Over every shard when there are several (merged-balances.ts); one shard's two hashes otherwise. */
  async balances(userId: string): Promise<BalanceDto[]> {
    return this.dtos(this.shards.count > 1 ? await mergedBalances(this.redis, this.shards, userId) : await this.shardZero(userId));
  }

  /**
   * The private stream's balance snapshot: each shard's part with its balance sequence, read in one
   * MULTI per shard, and the transfers in flight (merged-balances.ts walletParts): the sum is what
   * balances() reads.
   */
  parts(userId: string): Promise<WalletParts> {
    return walletParts(this.redis, this.shards, userId);
  }

  /** Rows of balances held in minor units, sorted by currency: what balances() answers. */
  async dtos(minor: MinorBalances): Promise<BalanceDto[]> {
    const out: BalanceDto[] = [];
    for (const [code, b] of [...minor].sort(([a], [z]) => (a < z ? -1 : 1))) {
      const digits = (await this.markets.getCurrency(code))?.decimals ?? 0;
      out.push({ currencyCode: code, available: fromMinor(b.available, digits), reserved: fromMinor(b.reserved, digits) });
    }
    return out;
  }

  private async shardZero(userId: string): Promise<MinorBalances> {
    const k = this.shards.keys(0);
    const [avail, rsv] = await Promise.all([this.redis.hgetall(k.walletAvailable(userId)), this.redis.hgetall(k.walletReserved(userId))]);
    const codes = new Set([...Object.keys(avail), ...Object.keys(rsv)]);
    return new Map([...codes].map((c) => [c, { available: avail[c] ?? '', reserved: rsv[c] ?? '' }]));
  }
}
