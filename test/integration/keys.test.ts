import { Keys } from '../../src/platform/redis/keys';
import { resolveIncludes, LUA_DIR } from '../../src/platform/redis/lua-loader';
import { testContext } from '../support/harness';

/** lua/includes/keys.lua builds the keys a script only learns while running; they must match keys.ts. */
describe('Lua and TypeScript agree on key names', () => {
  it('for orders, wallets, open-order sets and every book key', async () => {
    const ctx = await testContext();
    try {
      const lua = resolveIncludes(
        LUA_DIR,
        `--- @include "includes/keys"
local P = ARGV[1]
local b = bookKeys(P, ARGV[2], ARGV[3])
return { orderKey(P, '42'), walletAvailKey(P, 'u1'), walletRsvKey(P, 'u1'), userOpenKey(P, ARGV[2], ARGV[3], 'u1'),
  b.book.bids, b.book.asks, b.levels.bids, b.levels.asks, b.lvlqty.bids, b.lvlqty.asks, b.seq, b.events, b.last }`,
        'keys-probe.lua',
      );
      const k: Keys = ctx.keys;
      for (const kind of ['spot', 'futures'] as const) {
        const pair = 'BTC_USDT.TRC20';
        const fromLua = await ctx.redis.eval(lua, 0, k.engine, kind, pair);
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

  it('every engine key shares the shard hash tag', () => {
    const k = new Keys('ex', 3);
    for (const key of [k.order(1), k.book('spot', 'A_B', 'bids'), k.walletAvailable('u'), k.events('futures', 'A_B')]) {
      expect(key).toMatch(/^ex:\{e3\}:/);
    }
  });
});
