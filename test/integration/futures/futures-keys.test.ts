import { futuresParams } from '../../../src/domain/futures';
import { resolveIncludes, LUA_DIR } from '../../../src/platform/redis/lua-loader';
import { MarketStore } from '../../../src/markets/market-store';
import { FuturesScriptKeys } from '../../../src/futures/futures-script-keys';
import { FuturesKeyring } from '../../../src/futures/futures-keyring';
import { testContext } from '../../support/harness';

/**
 * The futures keys must agree between TypeScript and Lua: those the caller passes, read by position
 * (src/futures/futures-script-keys.ts builds KEYS[1..22], lua/includes/futures/commandKeys.lua names
 * them), and those Lua builds while running (lua/includes/keys.lua).
 */
it('Lua and TypeScript agree on the futures key names', async () => {
  const ctx = await testContext();
  try {
    const lua = resolveIncludes(
      LUA_DIR,
      `--- @include "includes/futures/context"
local P, pair = ARGV[1], ARGV[2]
local ctx = futuresContextFor(KEYS, P, pair, '0', '1000')
local f = ctx.fkeys
return { futuresAccountKey(P, '7'), f.tpL, f.tpS, f.slL, f.slS, f.liqL, f.liqS, ctx.keys.tradeIds,
  ctx.keys.orderIds, ctx.keys.fees, ctx.keys.insurance, ctx.keys.pool, ctx.keys.last, ctx.keys.events,
  futuresAccountOpenKey(P, '7'), tostring(ctx.fut.ns), tostring(ctx.fut.maker), tostring(ctx.fut.taker),
  tostring(ctx.fut.mmr) }`,
      'futures-keys-probe.lua',
    );
    const k = ctx.keys;
    const pair = 'BTC_USDT';
    const market = new FuturesScriptKeys(FuturesKeyring.of(k)).market(pair);
    // KEYS[22] is unused (was the set of positions in force) but kept: six scripts' numbering stays
    expect([market.length, market[21]]).toEqual([22, k.futuresActive(pair)]);
    expect(await ctx.redis.eval(lua, market.length, ...market, k.engine, pair)).toEqual([
      k.futuresAccount(7), k.futuresTrigger(pair, 'tpL'), k.futuresTrigger(pair, 'tpS'), k.futuresTrigger(pair, 'slL'),
      k.futuresTrigger(pair, 'slS'), k.futuresTrigger(pair, 'liqL'), k.futuresTrigger(pair, 'liqS'),
      k.tradeIds(), k.orderIds(), k.feesCollected(), k.insuranceFund(), k.futuresPnlPool(), k.lastPrice('futures', pair),
      k.events('futures', pair), k.futuresAccountOpenOrders(7),
      // the parameters Lua derives from the pair hash agree with src/domain/futures.ts
      '1000', '200', '500', '5000',
    ]);
    // the first command packed them in the pair hash (futParams); the next reads them from there alike,
    // and the pair the service reads leaves the field out
    expect(await ctx.redis.hget(k.pair('futures', pair), 'futParams')).toMatch(/^1000 200 500 5000 \S+ USDT$/);
    expect(((await ctx.redis.eval(lua, market.length, ...market, k.engine, pair)) as string[]).slice(-4)).toEqual(['1000', '200', '500', '5000']);
    expect(await new MarketStore(ctx.redis, k, ctx.scripts, ctx.shards).getPair('futures', pair)).not.toHaveProperty('futParams');
    const params = futuresParams((await ctx.markets.store.getPair('futures', pair))!);
    expect([params.ns, params.makerPpm, params.takerPpm, params.mmrPpm]).toEqual([1000, 200, 500, 5000]);
    for (const key of [k.futuresAccount(1), k.futuresTrigger(pair, 'liqL'), k.insuranceFund(), k.indexPrice(pair), k.fundingState(pair)]) {
      expect(key.startsWith(k.engine)).toBe(true);
    }
  } finally {
    await ctx.cleanup();
  }
});
