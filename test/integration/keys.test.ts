import type { Pair } from '../../src/domain/market';
import { Keys } from '../../src/platform/redis/keys';
import { shardTag } from '../../src/platform/redis/shard-tags';
import { resolveIncludes, LUA_DIR } from '../../src/platform/redis/lua-loader';
import { FuturesScriptKeys } from '../../src/futures/futures-script-keys';
import { FuturesKeyring } from '../../src/futures/futures-keyring';
import { testContext } from '../support/harness';

/**
 * lua/includes/keys.lua builds the keys a script only learns while running; they must match keys.ts.
 * A market's keys are passed by the caller: Lua reads them by position (includes/spot/spotMarketKeys,
 * includes/futures/commandKeys), which must be the order the engines build them in.
 */
describe('Lua and TypeScript agree on key names', () => {
  it('for orders, wallets, open-order sets and every book key', async () => {
    const ctx = await testContext();
    try {
      const lua = resolveIncludes(
        LUA_DIR,
        `--- @include "includes/keys"
--- @include "includes/spot/spotMarketKeys"
--- @include "includes/futures/commandKeys"
local P = ARGV[1]
local b
if ARGV[2] == 'spot' then b = spotMarketKeys(KEYS) else b = futuresMarketKeys(KEYS) end
return { orderKey(P, '42'), walletAvailKey(P, 'u1'), walletRsvKey(P, 'u1'), userOpenKey(P, ARGV[2], ARGV[3], 'u1'),
  b.book.bids, b.book.asks, b.levels.bids, b.levels.asks, b.lvlqty.bids, b.lvlqty.asks, b.seq, b.events, b.last }`,
        'keys-probe.lua',
      );
      const k: Keys = ctx.keys;
      for (const kind of ['spot', 'futures'] as const) {
        const pair = 'BTC_USDT.TRC20';
        const market = kind === 'spot' ? ctx.spot.engine.marketKeys(pair) : new FuturesScriptKeys(FuturesKeyring.of(k)).market(pair);
        const fromLua = await ctx.redis.eval(lua, market.length, ...market, k.engine, kind, pair);
        expect(fromLua).toEqual([
          k.order(42), k.walletAvailable('u1'), k.walletReserved('u1'), k.userOpenOrders('u1', kind, pair),
          k.book(kind, pair, 'bids'), k.book(kind, pair, 'asks'), k.levels(kind, pair, 'bids'), k.levels(kind, pair, 'asks'),
          k.levelQty(kind, pair, 'bids'), k.levelQty(kind, pair, 'asks'), k.bookSeq(kind, pair), k.events(kind, pair),
          k.lastPrice(kind, pair),
        ]);
      }
    } finally {
      await ctx.cleanup();
    }
  });

  it('for a futures order met by its numeric id, past 1e14 too (printed whole, not in exponent form)', async () => {
    const ctx = await testContext();
    try {
      const lua = resolveIncludes(
        LUA_DIR,
        `--- @include "includes/futures/commandKeys"
local ctx = { P = ARGV[1], orderKeys = {} }
return { fOrderKey(ctx, 42), fOrderKey(ctx, 123456789012345), fOrderKey(ctx, 9007199254740991) }`,
        'order-key-probe.lua',
      );
      const k: Keys = ctx.keys;
      expect(await ctx.redis.eval(lua, 0, k.engine)).toEqual([
        k.order(42), k.order('123456789012345'), k.order('9007199254740991'),
      ]);
    } finally {
      await ctx.cleanup();
    }
  });

  it('for the trading aggregates and rankings of futures accounts', async () => {
    const ctx = await testContext();
    try {
      const lua = resolveIncludes(
        LUA_DIR,
        `--- @include "includes/keys"
local P = ARGV[1]
return { futuresStatsKey(P, '7'), futuresDailyKey(P, '7'), futuresDaysKey(P, '7'), futuresRankKey(P),
  futuresRankKey(P, 'roi'), futuresRankKey(P, 'all') }`,
        'stats-keys-probe.lua',
      );
      const k: Keys = ctx.keys;
      expect(await ctx.redis.eval(lua, 0, k.engine)).toEqual([
        k.futuresStats(7), k.futuresDaily(7), k.futuresDays(7), k.futuresRank(), k.futuresRank('roi'), k.futuresRank('all'),
      ]);
    } finally {
      await ctx.cleanup();
    }
  });

  it('for the trade history, its time index, the user indices and the retention', async () => {
    const ctx = await testContext();
    try {
      const lua = resolveIncludes(
        LUA_DIR,
        `--- @include "includes/tradeHistory"
local k = historyKeysOf(ARGV[1], ARGV[2], ARGV[3])
return { k.records, k.times, k.users .. 'u1', k.retention }`,
        'trade-history-keys-probe.lua',
      );
      const k: Keys = ctx.keys;
      for (const kind of ['spot', 'futures'] as const) {
        expect(await ctx.redis.eval(lua, 0, k.engine, kind, 'BTC_USDT')).toEqual([
          k.tradeHistory(kind, 'BTC_USDT'), k.tradeTimes(kind, 'BTC_USDT'), k.userTrades(kind, 'BTC_USDT', 'u1'), k.tradeHistoryRetention(),
        ]);
      }
      // spot placement passes the market's three in KEYS[13..15], where the futures scripts build them
      const pair = (await ctx.markets.store.getPair('spot', 'BTC_USDT')) as Pair;
      const [keys] = ctx.spot.engine.placeArgs([
        { userId: 'u1', pair, side: 'buy', type: 'limit', priceTicks: '1', amountLots: '1', postOnly: false, stp: 'NONE', clientOrderId: null, timestamp: 0 },
      ]);
      const [records, times, , retention] = (await ctx.redis.eval(lua, 0, k.engine, 'spot', 'BTC_USDT')) as string[];
      expect(keys.slice(12, 15)).toEqual([records, times, retention]);
    } finally {
      await ctx.cleanup();
    }
  });

  it('for the futures accounts and their open-orders index', async () => {
    const ctx = await testContext();
    try {
      const lua = resolveIncludes(
        LUA_DIR,
        `--- @include "includes/keys"
return { futuresAccountKey(ARGV[1], ARGV[2]), futuresAccountOpenKey(ARGV[1], ARGV[2]) }`,
        'account-keys-probe.lua',
      );
      const k: Keys = ctx.keys;
      expect(await ctx.redis.eval(lua, 0, k.engine, '42')).toEqual([k.futuresAccount(42), k.futuresAccountOpenOrders(42)]);
      // the index of all an account's orders is always passed in KEYS, and is a key of its own
      expect(new Set([k.futuresAccount(42), k.futuresAccountOpenOrders(42), k.futuresAccountOrders(42)]).size).toBe(3);
    } finally {
      await ctx.cleanup();
    }
  });

  it('for a transfer record a copy payment writes (its id arrives in ARGV)', async () => {
    const ctx = await testContext();
    try {
      const lua = resolveIncludes(
        LUA_DIR,
        `--- @include "includes/keys"
return transferKey(ARGV[1], ARGV[2])`,
        'transfer-key-probe.lua',
      );
      for (const k of [ctx.keys, new Keys(ctx.keys.prefix, 2)]) {
        expect(await ctx.redis.eval(lua, 0, k.engine, 'b3f1c2d4-0000-4000-8000-000000000001')).toBe(
          k.transfer('b3f1c2d4-0000-4000-8000-000000000001'),
        );
      }
    } finally {
      await ctx.cleanup();
    }
  });

  it('every engine key shares the shard hash tag', () => {
    const k = new Keys('ex', 3);
    for (const key of [
      k.order(1), k.book('spot', 'A_B', 'bids'), k.walletAvailable('u'), k.events('futures', 'A_B'),
      k.futuresAccountOrders(1), k.futuresAccountOpenOrders(1),
    ]) {
      expect(key.startsWith(`ex:{${shardTag(3)}}:`)).toBe(true);
    }
  });
});
