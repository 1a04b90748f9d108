import type { Pair } from '../../src/domain/market';
import { STP_MODES, type PlaceSpotInput } from '../../src/engine/spot-engine';
import type { ScriptReply } from '../../src/engine/reply';
import { testContext } from '../support/harness';

/**
 * placeSpotOrders with several orders in one call (the group commit of docs/spot.md) must do
 * exactly what the same orders do one call each. Expected values come from the one-per-call run.
 */
type Ctx = Awaited<ReturnType<typeof testContext>>;

const USERS = ['u0', 'u1', 'u2'];

async function market(): Promise<{ ctx: Ctx; pair: Pair }> {
  const ctx = await testContext();
  for (const u of USERS) {
    await ctx.wallets.deposit(u, 'USDT', 20);
    await ctx.wallets.deposit(u, 'BTC', 0.02);
  }
  const pair = (await ctx.marketStore.getPair('spot', 'BTC_USDT')) as Pair;
  return { ctx, pair };
}

/** A deterministic pseudo-random sequence (LCG), so a failure replays. */
function rng(seed: number) {
  let x = seed >>> 0;
  return (n: number) => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x % n;
  };
}

function randomOrders(pair: Pair, seed: number, n: number): PlaceSpotInput[] {
  const r = rng(seed);
  return Array.from({ length: n }, (_, i) => {
    const side = r(2) ? 'buy' : 'sell';
    const market = r(5) === 0;
    const o: PlaceSpotInput = {
      userId: USERS[r(USERS.length)],
      pair,
      side,
      type: market ? 'market' : 'limit',
      postOnly: r(4) === 0,
      stp: STP_MODES[r(STP_MODES.length)],
      clientOrderId: r(6) === 0 ? `c${r(3)}` : null,
      timestamp: 1_700_000_000_000 + i,
    };
    if (!market) o.priceTicks = String(100_000 + r(11));
    if (market && side === 'buy') o.quoteBudget = String(100_000_000 + r(400_000_000));
    else o.amountLots = String(1_000 + r(11_000));
    return o;
  });
}

async function placeBatch(ctx: Ctx, orders: PlaceSpotInput[]): Promise<ScriptReply[]> {
  return ctx.scripts.run<ScriptReply[]>('placeSpotOrders', ...ctx.spotEngine.placeArgs(orders));
}

/** What a reply says, ids included (both markets count ids from 1). */
const outcome = (reply: ScriptReply) => (reply[0] === 'DUP' ? ['DUP', reply[1]] : reply);

async function stateOf(ctx: Ctx) {
  const book = await ctx.books.snapshot('spot', 'BTC_USDT', 100);
  const balances = await Promise.all(USERS.map((u) => ctx.wallets.balances(u)));
  const fees = await ctx.redis.hgetall(ctx.keys.feesCollected());
  return { bids: book.bids, asks: book.asks, balances, fees };
}

/** Every event but the book's, in order, across all entries of the market stream. */
async function orderEvents(ctx: Ctx): Promise<Record<string, string>[]> {
  const entries = await ctx.redis.xrange(ctx.keys.events('spot', 'BTC_USDT'), '-', '+');
  return entries
    .flatMap(([, fields]) => JSON.parse(fields[fields.indexOf('ev') + 1]) as Record<string, string>[])
    .filter((e) => e.e !== 'book');
}

describe('placeSpotOrders with several orders in one call', () => {
  it('ends exactly where the same orders placed one call each end', async () => {
    for (const seed of [1, 2, 3, 4]) {
      const one = await market();
      const batched = await market();
      try {
        const orders = randomOrders(one.pair, seed, 40);
        const sequential: ScriptReply[] = [];
        for (const o of orders) sequential.push(...(await placeBatch(one.ctx, [o])));
        const together = await placeBatch(batched.ctx, randomOrders(batched.pair, seed, 40));

        expect(together.map(outcome)).toEqual(sequential.map(outcome));
        // the sequence did something worth comparing: trades, rests and rejections
        expect(sequential.some((r) => r[0] === 'OK' && r[2] === 'filled')).toBe(true);
        expect(sequential.some((r) => r[0] === 'ERR')).toBe(true);
        expect(await stateOf(batched.ctx)).toEqual(await stateOf(one.ctx));
        expect(await orderEvents(batched.ctx)).toEqual(await orderEvents(one.ctx));
      } finally {
        await one.ctx.cleanup();
        await batched.ctx.cleanup();
      }
    }
  });

  it('counts what earlier orders of the batch reserved: the order the balance no longer covers is rejected', async () => {
    const { ctx, pair } = await market();
    try {
      // u0 holds 20 USDT; each buy reserves 100,000 ticks x 15,000 lots x 1 minor unit = 15 USDT
      const buy = (ts: number): PlaceSpotInput => ({
        userId: 'u0', pair, side: 'buy', type: 'limit', priceTicks: '100000', amountLots: '15000',
        postOnly: false, stp: 'NONE', clientOrderId: null, timestamp: ts,
      });
      const before = await ctx.wallets.balances('u0');
      const [first, second] = await placeBatch(ctx, [buy(1), buy(2)]);
      expect(first[0]).toBe('OK');
      expect(second).toEqual(['ERR', 'INSUFFICIENT_BALANCE', 'USDT']);
      const usdt = (bs: { currencyCode: string; available: number; reserved: number }[]) =>
        bs.find((b) => b.currencyCode === 'USDT');
      const after = usdt(await ctx.wallets.balances('u0'));
      expect(after?.reserved).toBe(15);
      expect(after?.available).toBe((usdt(before)?.available ?? 0) - 15);
      // nothing of the second order exists: one order record, one id used
      expect(await ctx.redis.get(ctx.keys.orderIds())).toBe('1');
      expect(await ctx.redis.zcard(ctx.keys.userOrders('u0', 'spot'))).toBe(1);
    } finally {
      await ctx.cleanup();
    }
  });

  it('a clientOrderId used twice in one batch places one order; the repeat answers it', async () => {
    const { ctx, pair } = await market();
    try {
      const o: PlaceSpotInput = {
        userId: 'u1', pair, side: 'sell', type: 'limit', priceTicks: '100500', amountLots: '2000',
        postOnly: false, stp: 'NONE', clientOrderId: 'same', timestamp: 5,
      };
      const [first, repeat] = await placeBatch(ctx, [o, { ...o, amountLots: '3000' }]);
      expect(first[0]).toBe('OK');
      expect(repeat[0]).toBe('DUP');
      expect(repeat[1]).toBe(first[1]);
      const btc = (await ctx.wallets.balances('u1')).find((b) => b.currencyCode === 'BTC');
      expect(btc?.reserved).toBe(0.002);
    } finally {
      await ctx.cleanup();
    }
  });

  it('orders of one batch trade with each other at the maker price, with one event entry and one book sequence step', async () => {
    const { ctx, pair } = await market();
    try {
      const stream = ctx.keys.events('spot', 'BTC_USDT');
      await placeBatch(ctx, [
        { userId: 'u2', pair, side: 'buy', type: 'limit', priceTicks: '99000', amountLots: '1000', postOnly: false, stp: 'NONE', timestamp: 1 },
      ]);
      const [[, prevFields]] = await ctx.redis.xrevrange(stream, '+', '-', 'COUNT', 1);
      const prevSeq = Number(prevFields[prevFields.indexOf('seq') + 1]);
      const entriesBefore = await ctx.redis.xlen(stream);

      const [sell, buy] = await placeBatch(ctx, [
        { userId: 'u0', pair, side: 'sell', type: 'limit', priceTicks: '100200', amountLots: '3000', postOnly: false, stp: 'NONE', timestamp: 2 },
        { userId: 'u1', pair, side: 'buy', type: 'limit', priceTicks: '100900', amountLots: '3000', postOnly: false, stp: 'NONE', timestamp: 3 },
      ]);
      expect(sell.slice(0, 3)).toEqual(['OK', sell[1], 'open']);
      expect(buy.slice(0, 4)).toEqual(['OK', buy[1], 'filled', '3000']);
      // at the maker's price: 100,200 ticks x 3,000 lots x quote scale 1
      expect(buy[4]).toBe(String(100_200 * 3_000));
      const maker = await ctx.spotOrders.get('u0', String(sell[1]));
      expect([maker.status, maker.filled]).toEqual(['filled', 0.003]);

      expect(await ctx.redis.xlen(stream)).toBe(entriesBefore + 1);
      const [[, fields]] = await ctx.redis.xrevrange(stream, '+', '-', 'COUNT', 1);
      expect(Number(fields[fields.indexOf('seq') + 1])).toBe(prevSeq + 1);
      const events = JSON.parse(fields[fields.indexOf('ev') + 1]) as Record<string, string>[];
      expect(events.filter((e) => e.e === 'accepted').map((e) => e.id)).toEqual([sell[1], buy[1]]);
      const trades = events.filter((e) => e.e === 'trade');
      expect(trades).toHaveLength(1);
      expect([trades[0].p, trades[0].q, trades[0].mk, trades[0].tk]).toEqual(['100200', '3000', sell[1], buy[1]]);
    } finally {
      await ctx.cleanup();
    }
  });

  it('a batch whose every order is rejected writes no event and moves no balance', async () => {
    const { ctx, pair } = await market();
    try {
      const stream = ctx.keys.events('spot', 'BTC_USDT');
      const before = { entries: await ctx.redis.xlen(stream), state: await stateOf(ctx) };
      const tooBig: PlaceSpotInput = {
        userId: 'u0', pair, side: 'buy', type: 'limit', priceTicks: '100000', amountLots: '900000',
        postOnly: false, stp: 'NONE', clientOrderId: null, timestamp: 1,
      };
      const replies = await placeBatch(ctx, [tooBig, { ...tooBig, userId: 'u1' }]);
      expect(replies.map((r) => r[0])).toEqual(['ERR', 'ERR']);
      expect(await ctx.redis.xlen(stream)).toBe(before.entries);
      expect(await stateOf(ctx)).toEqual(before.state);
    } finally {
      await ctx.cleanup();
    }
  });

  it('concurrent placements through the engine answer as the same orders placed one by one', async () => {
    const one = await market();
    const together = await market();
    try {
      const orders = randomOrders(one.pair, 7, 20);
      const sequential = [];
      for (const o of orders) sequential.push(await one.ctx.spotEngine.place(o).catch((e: Error) => e.message));
      const concurrent = await Promise.all(
        randomOrders(together.pair, 7, 20).map((o) => together.ctx.spotEngine.place(o).catch((e: Error) => e.message)),
      );
      expect(concurrent).toEqual(sequential);
      expect(await stateOf(together.ctx)).toEqual(await stateOf(one.ctx));
    } finally {
      await one.ctx.cleanup();
      await together.ctx.cleanup();
    }
  });
});
