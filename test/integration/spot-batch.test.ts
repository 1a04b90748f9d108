import { AppError } from '../../src/domain/errors';
import { feeRatePpm } from '../../src/domain/decimal';
import BigNumber from 'bignumber.js';
import { scales, shardOfPair, type Pair } from '../../src/domain/market';
import type { ScriptReply } from '../../src/platform/redis/reply';
import type { LuaScript } from '../../src/platform/redis/lua-loader';
import {
  MAX_PLACE_BATCH,
  decodeSpotPlace,
  type PlaceResult,
  type PlaceSpotInput,
} from '../../src/spot/spot-engine';
import { STP_MODES } from '../../src/domain/order';
import { decodeSpotOrder } from '../../src/spot/spot-order-record';
import { testContext } from '../support/harness';
import { parseEvents } from '../../src/platform/market-event';

/**
 * placeSpotOrders with several orders in one call (group commit, docs/spot.md) against the real
 * Redis: a batch must end exactly where the same orders end one call each. Expected values come
 * from a one-per-call run on a second, fresh context (its own key prefix, so its own id counters:
 * ids of both runs count from 1 and compare as they are), never from constants.
 */
type Ctx = Awaited<ReturnType<typeof testContext>>;
type Deposits = Record<string, { USDT?: number; BTC?: number }>;

const PAIR = 'BTC_USDT';
const USERS = ['u0', 'u1', 'u2'];
/** Wallets that cover any 20 random orders. */
const RICH_DEPOSITS: Deposits = Object.fromEntries(USERS.map((u) => [u, { USDT: 1_000, BTC: 1 }]));
/** Unequal wallets, so that some orders of a random batch are not covered. */
const RANDOM_DEPOSITS: Deposits = {
  u0: { USDT: 20, BTC: 0.02 },
  u1: { USDT: 8, BTC: 0.01 },
  u2: { USDT: 40, BTC: 0.005 },
};

/**
 * A deposit the engine scripts below find on the market's shard: with several engine shards it lands
 * at the user's home and is moved to the market's shard (the service's top-up, which these calls skip).
 */
async function depositOnMarket(ctx: Ctx, pair: Pair, user: string, currency: string, amount: number): Promise<void> {
  await ctx.wallets.deposit(user, currency, amount);
  const decimals = currency === pair.baseCurrencyCode ? pair.baseDecimals : pair.quoteDecimals;
  await ctx.funds.fund(user, shardOfPair(pair), currency, new BigNumber(amount).shiftedBy(decimals).toFixed(0));
}

async function market(deposits: Deposits = RANDOM_DEPOSITS): Promise<{ ctx: Ctx; pair: Pair }> {
  const ctx = await testContext();
  try {
    const pair = await ctx.markets.store.getPair('spot', PAIR);
    if (!pair) throw new Error(`${PAIR} was not seeded`);
    for (const [user, amounts] of Object.entries(deposits)) {
      for (const [currency, amount] of Object.entries(amounts)) {
        if (amount) await depositOnMarket(ctx, pair, user, currency, amount);
      }
    }
    return { ctx, pair };
  } catch (e) {
    await ctx.cleanup();
    throw e;
  }
}

/** Runs `body` on fresh markets and always cleans them up. */
async function withMarkets<T>(
  count: number,
  deposits: Deposits,
  body: (m: { ctx: Ctx; pair: Pair }[]) => Promise<T>,
) {
  const markets: { ctx: Ctx; pair: Pair }[] = [];
  try {
    for (let i = 0; i < count; i++) markets.push(await market(deposits));
    return await body(markets);
  } finally {
    for (const m of markets) await m.ctx.cleanup();
  }
}

/** One placeSpotOrders call for all of `orders`, through the script runner. */
function placeBatch(ctx: Ctx, orders: PlaceSpotInput[]): Promise<ScriptReply[]> {
  return ctx.scripts.run<ScriptReply[]>('placeSpotOrders', ...ctx.spot.engine.placeArgs(orders));
}

/** One placeSpotOrders call for all of `orders`, through SpotEngine.queuePlace on a pipeline. */
async function placeQueued(ctx: Ctx, orders: PlaceSpotInput[]): Promise<ScriptReply[]> {
  const pipeline = ctx.redis.pipeline();
  ctx.spot.engine.queuePlace(pipeline, orders);
  const results = (await pipeline.exec()) ?? [];
  expect(results).toHaveLength(1);
  const [err, reply] = results[0];
  if (err) throw err;
  return reply as ScriptReply[];
}

/** The same orders one call each, each awaited before the next is sent. */
async function placeOneByOne(ctx: Ctx, orders: PlaceSpotInput[]): Promise<ScriptReply[]> {
  const replies: ScriptReply[] = [];
  for (const o of orders) {
    const reply = await placeBatch(ctx, [o]);
    expect(reply).toHaveLength(1);
    replies.push(reply[0]);
  }
  return replies;
}

/** A reply with a DUP's order hash as an object, so field order inside the hash does not matter. */
function outcome(reply: ScriptReply): unknown[] {
  if (reply[0] !== 'DUP') return reply;
  return ['DUP', reply[1], decodeSpotOrder(String(reply[1]), hashOf(reply[2]))];
}

function hashOf(flat: unknown): Record<string, string> {
  const list = flat as string[];
  const out: Record<string, string> = {};
  for (let i = 0; i < list.length; i += 2) out[list[i]] = list[i + 1];
  return out;
}

const streamKey = (ctx: Ctx) => ctx.keys.events('spot', PAIR);

/**
 * Everything the placements can change apart from the event stream and the book sequence (which a
 * batch advances once, not once per order): book, balances, fees, every order record, open orders,
 * clientOrderIds, last price and the id counters.
 */
async function stateOf(ctx: Ctx, users: string[]) {
  const k = ctx.keys;
  const r = ctx.redis;
  const book = await ctx.marketData.books.snapshot('spot', PAIR, 0);
  const perUser = await Promise.all(
    users.map(async (u) => {
      const ids = await r.zrange(k.userOrders(u, 'spot'), '0', '-1');
      const orders = await Promise.all(
        ids.map(async (id) => decodeSpotOrder(id, await r.hgetall(k.order(id)))),
      );
      return {
        user: u,
        balances: await ctx.wallets.balances(u),
        orders,
        open: (await r.smembers(k.userOpenOrders(u, 'spot', PAIR))).sort(),
        clientOrderIds: await r.hgetall(k.clientOrderIds(u)),
        // the user's trade index, ids with scores
        trades: await r.zrange(k.userTrades('spot', PAIR, u), '0', '-1', 'WITHSCORES'),
      };
    }),
  );
  return {
    bids: book.bids,
    asks: book.asks,
    users: perUser,
    fees: await r.hgetall(k.feesCollected()),
    last: await r.get(k.lastPrice('spot', PAIR)),
    orderIds: await r.get(k.orderIds()),
    tradeIds: await r.get(k.tradeIds()),
  };
}

type Event = Record<string, string>;

async function streamEntries(ctx: Ctx): Promise<{ id: string; fields: Record<string, string> }[]> {
  const entries = await ctx.redis.xrange(streamKey(ctx), '-', '+');
  return entries.map(([id, flat]) => ({ id, fields: hashOf(flat) }));
}

const eventsOf = (fields: Record<string, string>) => parseEvents(fields.ev) as Event[];

/** Every event but the book's, in order, across all entries of the market stream. */
async function orderEvents(ctx: Ctx): Promise<Event[]> {
  return (await streamEntries(ctx)).flatMap((e) => eventsOf(e.fields)).filter((e) => e.e !== 'book');
}

/** Minor units of a user's wallet, exactly as the engine holds them (absent = 0). */
async function wallet(ctx: Ctx, user: string, currency: string): Promise<{ avail: number; rsv: number }> {
  const [avail, rsv] = await Promise.all([
    ctx.redis.hget(ctx.keys.walletAvailable(user), currency),
    ctx.redis.hget(ctx.keys.walletReserved(user), currency),
  ]);
  return { avail: Number(avail ?? 0), rsv: Number(rsv ?? 0) };
}

/** A deterministic pseudo-random sequence (LCG), so a failure replays. */
function rng(seed: number) {
  let x = seed >>> 0;
  return (n: number) => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return Math.floor((x / 2 ** 32) * n);
  };
}

/**
 * Three users, both sides, limit and market (market buys by quote budget), every STP mode, some
 * post-only and some clientOrderIds from a small set (so repeats happen); prices on six levels a
 * dollar apart, so orders meet each other often.
 */
function randomOrders(
  pair: Pair,
  seed: number,
  n: number,
  opts: { allAccepted?: boolean } = {},
): PlaceSpotInput[] {
  const r = rng(seed);
  return Array.from({ length: n }, (_, i) => {
    const side = r(2) ? 'buy' : 'sell';
    const isMarket = r(5) === 0;
    const o: PlaceSpotInput = {
      userId: USERS[r(USERS.length)],
      pair,
      side,
      type: isMarket ? 'market' : 'limit',
      postOnly: r(4) === 0,
      stp: STP_MODES[r(STP_MODES.length)],
      clientOrderId: r(5) === 0 ? `c${r(3)}` : null,
      timestamp: 1_700_000_000_000 + i,
    };
    // with wallets that cover everything: no post-only rejection, no repeated clientOrderId
    if (opts.allAccepted) Object.assign(o, { postOnly: false, clientOrderId: o.clientOrderId && `k${i}` });
    if (!isMarket) o.priceTicks = String(100_000 + 100 * r(6));
    if (isMarket && side === 'buy') o.quoteBudget = String(100_000_000 + r(700_000_000));
    else o.amountLots = String(1_000 + r(11_000));
    return o;
  });
}

const limit = (
  userId: string,
  pair: Pair,
  side: 'buy' | 'sell',
  priceTicks: number,
  amountLots: number,
  timestamp: number,
  extra: Partial<PlaceSpotInput> = {},
): PlaceSpotInput => ({
  userId,
  pair,
  side,
  type: 'limit',
  priceTicks: String(priceTicks),
  amountLots: String(amountLots),
  postOnly: false,
  stp: 'NONE',
  clientOrderId: null,
  timestamp,
  ...extra,
});

/** A fee as the engine rounds it: up, on whole minor units. */
const feeOf = (minor: number, rate: number) => Math.ceil((minor * feeRatePpm(rate)) / 1_000_000);

describe('placeSpotOrders with several orders in one call', () => {
  it('a batch of random orders ends exactly where the same orders placed one call each end', async () => {
    const seen = new Set<string>();
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      await withMarkets(2, RANDOM_DEPOSITS, async ([one, batched]) => {
        const orders = randomOrders(one.pair, seed, MAX_PLACE_BATCH);
        const sequential = await placeOneByOne(one.ctx, orders);
        const entriesBefore = (await streamEntries(batched.ctx)).length;
        const together = await placeBatch(batched.ctx, randomOrders(batched.pair, seed, MAX_PLACE_BATCH));

        const where = `seed ${seed}`;
        expect([where, together.map(outcome)]).toEqual([where, sequential.map(outcome)]);
        expect([where, await stateOf(batched.ctx, USERS)]).toEqual([where, await stateOf(one.ctx, USERS)]);
        // the wallets' events aside (below): a batch moves a wallet once, a call each once per call
        const notBal = (events: Event[]) => events.filter((e) => e.e !== 'bal');
        expect([where, notBal(await orderEvents(batched.ctx))]).toEqual([where, notBal(await orderEvents(one.ctx))]);
        // the whole batch is one entry on the stream
        const entries = await streamEntries(batched.ctx);
        expect(entries.length).toBe(entriesBefore + 1);
        // its wallet events: one per user and currency it moved, each the wallet as the batch left it;
        // called one by one, each user's and currency's last is that same wallet
        const bals = eventsOf(entries[entries.length - 1].fields).filter((e) => e.e === 'bal');
        expect(bals.length).toBeGreaterThan(0);
        expect(new Set(bals.map((e) => `${e.u}|${e.c}`)).size).toBe(bals.length);
        const lastOne = new Map((await orderEvents(one.ctx)).filter((e) => e.e === 'bal').map((e) => [`${e.u}|${e.c}`, e]));
        expect([...lastOne.keys()].sort()).toEqual(bals.map((e) => `${e.u}|${e.c}`).sort());
        for (const e of bals) {
          const w = await wallet(batched.ctx, e.u, e.c);
          expect([where, e.u, e.c, Number(e.a), Number(e.rs)]).toEqual([where, e.u, e.c, w.avail, w.rsv]);
          const o = lastOne.get(`${e.u}|${e.c}`)!;
          expect([where, e.u, e.c, o.a, o.rs]).toEqual([where, e.u, e.c, e.a, e.rs]);
        }

        // what the sequence exercised, so a generator that stops reaching a rule fails below
        const events = await orderEvents(one.ctx);
        const statusOf = new Map(
          sequential.filter((r) => r[0] === 'OK').map((r) => [String(r[1]), String(r[2])]),
        );
        sequential.forEach((r, i) => {
          seen.add(
            r[0] === 'OK' ? `OK ${String(r[2])}` : r[0] === 'ERR' ? `ERR ${String(r[1])}` : String(r[0]),
          );
          if (r[0] === 'OK' && r[2] === 'expired' && orders[i].type === 'limit')
            seen.add('limit taker expired');
        });
        for (const e of events) {
          if (e.e === 'trade' && e.tu === e.mu) seen.add('self-trade allowed');
          // a maker ended by self-trade prevention: expired, though its placement left it resting
          if (
            e.e === 'done' &&
            e.status === 'expired' &&
            ['open', 'partiallyFilled'].includes(statusOf.get(e.id) ?? '')
          ) {
            seen.add('maker expired');
          }
        }
      });
    }
    expect([...seen].sort()).toEqual(
      [
        'DUP',
        'ERR INSUFFICIENT_BALANCE',
        'ERR ORDER_POST_ONLY_WOULD_TAKE',
        'OK expired',
        'OK filled',
        'OK open',
        'OK partiallyFilled',
        'limit taker expired',
        'maker expired',
        'self-trade allowed',
      ].sort(),
    );
  });

  it('counts what an earlier order of the batch reserved: of two orders the balance covers one, the second is rejected and leaves nothing', async () => {
    await withMarkets(2, {}, async ([batched, alone]) => {
      const { ctx, pair } = batched;
      const { quoteScale } = scales(pair);
      const price = 100_000;
      const lots = 15_000;
      const reserveMinor = price * lots * quoteScale;
      // exactly one order's worth
      for (const m of [batched, alone]) {
        await depositOnMarket(m.ctx, pair, 'poor', pair.quoteCurrencyCode, reserveMinor / 10 ** pair.quoteDecimals);
      }
      const first = limit('poor', pair, 'buy', price, lots, 1);
      const second = limit('poor', pair, 'buy', price, lots, 2);
      // either order alone is covered by what the wallet holds before the batch
      expect((await wallet(ctx, 'poor', pair.quoteCurrencyCode)).avail).toBe(reserveMinor);

      const replies = await placeQueued(ctx, [first, second]);
      expect(replies).toHaveLength(2);
      expect(replies[0].slice(0, 3)).toEqual(['OK', replies[0][1], 'open']);
      expect(replies[0][6]).toBe(String(reserveMinor));
      expect(replies[1]).toEqual(['ERR', 'INSUFFICIENT_BALANCE', pair.quoteCurrencyCode]);
      const rejection = (() => {
        try {
          decodeSpotPlace(replies[1], second);
        } catch (e) {
          return e;
        }
      })();
      expect(rejection).toBeInstanceOf(AppError);
      expect((rejection as AppError).code).toBe('INSUFFICIENT_BALANCE');

      // the first order's reservation only, and nothing else of the second
      const firstId = String(replies[0][1]);
      expect(await wallet(ctx, 'poor', pair.quoteCurrencyCode)).toEqual({ avail: 0, rsv: reserveMinor });
      expect(await ctx.redis.zrange(ctx.keys.userOrders('poor', 'spot'), '0', '-1')).toEqual([firstId]);
      expect(await ctx.redis.smembers(ctx.keys.userOpenOrders('poor', 'spot', PAIR))).toEqual([firstId]);
      expect(await ctx.redis.get(ctx.keys.orderIds())).toBe(firstId);
      expect(await ctx.redis.exists(ctx.keys.order(Number(firstId) + 1))).toBe(0);

      // and the market is exactly where the first order alone leaves it
      const onlyFirst = await placeBatch(alone.ctx, [first]);
      expect(replies[0]).toEqual(onlyFirst[0]);
      expect(await stateOf(ctx, ['poor'])).toEqual(await stateOf(alone.ctx, ['poor']));
      expect(await orderEvents(ctx)).toEqual(await orderEvents(alone.ctx));
    });
  });

  it("reads a balance anew in each call: a deposit between two calls pays for the second call's order", async () => {
    await withMarkets(1, {}, async ([m]) => {
      const { ctx, pair } = m;
      const { quoteScale } = scales(pair);
      const price = 100_000;
      const lots = 15_000;
      const reserveMinor = price * lots * quoteScale;
      const quote = pair.quoteCurrencyCode;
      // the first call reads an empty wallet (the call's context, kept for the next call, notes what
      // its orders read)
      const first = await placeQueued(ctx, [limit('poor', pair, 'buy', price, lots, 1)]);
      expect(first[0]).toEqual(['ERR', 'INSUFFICIENT_BALANCE', quote]);
      await depositOnMarket(ctx, pair, 'poor', quote, reserveMinor / 10 ** pair.quoteDecimals);
      const second = await placeQueued(ctx, [limit('poor', pair, 'buy', price, lots, 2)]);
      expect(second[0].slice(0, 3)).toEqual(['OK', second[0][1], 'open']);
      expect(await wallet(ctx, 'poor', quote)).toEqual({ avail: 0, rsv: reserveMinor });
    });
  });

  it('counts what an earlier order of the batch credited: a sale earlier in the batch pays for a later buy', async () => {
    const deposits: Deposits = { seller: { BTC: 0.05 }, bidder: { USDT: 100 } };
    await withMarkets(2, deposits, async ([batched, one]) => {
      const { pair } = batched;
      const { quoteScale, baseScale } = scales(pair);
      const bid = limit('bidder', pair, 'buy', 100_000, 10_000, 1);
      // the seller holds no quote at all: only the sale inside the batch can pay for its buys
      expect((await wallet(batched.ctx, 'seller', pair.quoteCurrencyCode)).avail).toBe(0);

      const sale = limit('seller', pair, 'sell', 100_000, 10_000, 2);
      const saleQuote = 100_000 * 10_000 * quoteScale;
      const proceeds = saleQuote - feeOf(saleQuote, pair.takerFee);
      const buyPrice = 90_000;
      const perLot = buyPrice * quoteScale;
      const fitLots = Math.floor(proceeds / perLot);
      const leftLots = Math.floor((proceeds - fitLots * perLot) / perLot);
      const buy = limit('seller', pair, 'buy', buyPrice, fitLots, 3);
      const tooMuch = limit('seller', pair, 'buy', buyPrice, leftLots + 1, 4);
      const orders = [sale, buy, tooMuch];

      await placeBatch(batched.ctx, [bid]);
      const together = await placeBatch(batched.ctx, orders);
      await placeBatch(one.ctx, [bid]);
      const sequential = await placeOneByOne(one.ctx, orders);

      expect(together.map(outcome)).toEqual(sequential.map(outcome));
      expect(together.map((r) => (r[0] === 'OK' ? r[2] : r[1]))).toEqual([
        'filled',
        'open',
        'INSUFFICIENT_BALANCE',
      ]);
      const users = Object.keys(deposits);
      expect(await stateOf(batched.ctx, users)).toEqual(await stateOf(one.ctx, users));
      expect(await wallet(batched.ctx, 'seller', pair.quoteCurrencyCode)).toEqual({
        avail: proceeds - fitLots * perLot,
        rsv: fitLots * perLot,
      });
      expect(await wallet(batched.ctx, 'seller', pair.baseCurrencyCode)).toEqual({
        avail: Math.round(0.05 * 10 ** pair.baseDecimals) - 10_000 * baseScale,
        rsv: 0,
      });
    });
  });

  it('a clientOrderId used twice by one user in one batch places one order; the repeat answers DUP with its id', async () => {
    await withMarkets(1, RANDOM_DEPOSITS, async ([{ ctx, pair }]) => {
      const base = pair.baseCurrencyCode;
      const before = await wallet(ctx, 'u1', base);
      const first = limit('u1', pair, 'sell', 100_500, 2_000, 5, { clientOrderId: 'same' });
      const repeat = limit('u1', pair, 'sell', 100_700, 3_000, 6, { clientOrderId: 'same' });
      // the same clientOrderId from another user is that user's own
      const otherUser = limit('u2', pair, 'sell', 100_900, 1_000, 7, { clientOrderId: 'same' });

      const replies = await placeQueued(ctx, [first, repeat, otherUser]);
      expect(replies.map((r) => r[0])).toEqual(['OK', 'DUP', 'OK']);
      const firstId = String(replies[0][1]);
      expect(replies[1][1]).toBe(firstId);
      expect(replies[2][1]).not.toBe(firstId);

      // the repeat answers the first order as stored, not the repeat's own values
      const dup: PlaceResult = decodeSpotPlace(replies[1], repeat);
      const placed: PlaceResult = decodeSpotPlace(replies[0], first);
      expect(dup.duplicate).toBe(true);
      expect(placed.duplicate).toBe(false);
      expect(dup.order).toEqual(placed.order);
      expect(dup.order).toEqual(decodeSpotOrder(firstId, await ctx.redis.hgetall(ctx.keys.order(firstId))));

      // one order, one reservation
      expect(await ctx.redis.zrange(ctx.keys.userOrders('u1', 'spot'), '0', '-1')).toEqual([firstId]);
      expect(await ctx.redis.hgetall(ctx.keys.clientOrderIds('u1'))).toEqual({ same: firstId });
      const rsv = Number(replies[0][6]);
      expect(rsv).toBeGreaterThan(0);
      expect(await wallet(ctx, 'u1', base)).toEqual({ avail: before.avail - rsv, rsv: before.rsv + rsv });
      const book = await ctx.marketData.books.snapshot('spot', PAIR, 0);
      expect(book.asks).toEqual([
        [first.priceTicks, first.amountLots],
        [otherUser.priceTicks, otherUser.amountLots],
      ]);
    });
  });

  it('a clientOrderId whose order the batch rejected stays free for a later order of the same batch', async () => {
    await withMarkets(2, RANDOM_DEPOSITS, async ([batched, one]) => {
      const { pair } = batched;
      const orders = [
        limit('u2', pair, 'buy', 100_000, 1_000, 1),
        // would take the bid above: rejected, and its clientOrderId not consumed
        limit('u1', pair, 'sell', 99_000, 2_000, 2, { postOnly: true, clientOrderId: 'again' }),
        limit('u1', pair, 'sell', 101_000, 2_000, 3, { clientOrderId: 'again' }),
      ];
      const together = await placeBatch(batched.ctx, orders);
      expect(together.map((r) => r[0])).toEqual(['OK', 'ERR', 'OK']);
      expect(together[1]).toEqual(['ERR', 'ORDER_POST_ONLY_WOULD_TAKE', '']);
      expect(await batched.ctx.redis.hgetall(batched.ctx.keys.clientOrderIds('u1'))).toEqual({
        again: String(together[2][1]),
      });
      const sequential = await placeOneByOne(one.ctx, orders);
      expect(together.map(outcome)).toEqual(sequential.map(outcome));
      expect(await stateOf(batched.ctx, USERS)).toEqual(await stateOf(one.ctx, USERS));
    });
  });

  it("a sell and a crossing buy of one batch trade with each other at the maker's price", async () => {
    await withMarkets(1, RANDOM_DEPOSITS, async ([{ ctx, pair }]) => {
      const { quoteScale, baseScale } = scales(pair);
      const [makerPrice, takerPrice, sold, wanted] = [100_200, 100_900, 3_000, 5_000];
      const sell = limit('u0', pair, 'sell', makerPrice, sold, 2);
      const buy = limit('u1', pair, 'buy', takerPrice, wanted, 3);
      const walletsBefore = {
        u0: {
          base: await wallet(ctx, 'u0', pair.baseCurrencyCode),
          quote: await wallet(ctx, 'u0', pair.quoteCurrencyCode),
        },
        u1: {
          base: await wallet(ctx, 'u1', pair.baseCurrencyCode),
          quote: await wallet(ctx, 'u1', pair.quoteCurrencyCode),
        },
      };

      const replies = await placeBatch(ctx, [sell, buy]);
      const [sellId, buyId] = replies.map((r) => String(r[1]));
      const quote = makerPrice * sold * quoteScale;
      const base = sold * baseScale;
      const buyerFee = feeOf(base, pair.takerFee);
      const sellerFee = feeOf(quote, pair.makerFee);
      // the sell rested when it came; the buy took it at the maker's price and rests the rest at its own
      expect(replies[0]).toEqual(['OK', sellId, 'open', '0', '0', '0', String(base)]);
      expect(replies[1]).toEqual([
        'OK',
        buyId,
        'partiallyFilled',
        String(sold),
        String(quote),
        String(buyerFee),
        String(takerPrice * (wanted - sold) * quoteScale),
      ]);

      const [entry] = (await streamEntries(ctx)).slice(-1);
      const events = eventsOf(entry.fields);
      const trades = events.filter((e) => e.e === 'trade');
      expect(trades).toHaveLength(1);
      expect(trades[0]).toMatchObject({
        p: String(makerPrice),
        q: String(sold),
        side: 'buy',
        mk: sellId,
        tk: buyId,
        mu: 'u0',
        tu: 'u1',
        tf: String(buyerFee),
        mf: String(sellerFee),
      });
      expect(events.filter((e) => e.e === 'done')).toEqual([
        { e: 'done', id: sellId, u: 'u0', status: 'filled' },
      ]);

      // both orders as stored
      const stored = async (id: string) => decodeSpotOrder(id, await ctx.redis.hgetall(ctx.keys.order(id)));
      expect(await stored(sellId)).toMatchObject({
        status: 'filled',
        filled: String(sold),
        filledQuote: String(quote),
        fee: String(sellerFee),
        rsv: '0',
        price: String(makerPrice),
        uts: String(buy.timestamp),
      });
      expect(await stored(buyId)).toEqual(decodeSpotPlace(replies[1], buy).order);
      const dto = await ctx.spot.orders.get('u0', sellId);
      expect([dto.status, dto.filled]).toEqual(['filled', sold / 10 ** pair.digitsAmount]);

      const book = await ctx.marketData.books.snapshot('spot', PAIR, 0);
      expect([book.bids, book.asks]).toEqual([[[String(takerPrice), String(wanted - sold)]], []]);
      expect(await ctx.redis.get(ctx.keys.lastPrice('spot', PAIR))).toBe(String(makerPrice));

      // money: the seller's base went to the buyer, the buyer paid the maker's price, fees to the exchange
      expect(await wallet(ctx, 'u0', pair.baseCurrencyCode)).toEqual({
        avail: walletsBefore.u0.base.avail - base,
        rsv: walletsBefore.u0.base.rsv,
      });
      expect(await wallet(ctx, 'u0', pair.quoteCurrencyCode)).toEqual({
        avail: walletsBefore.u0.quote.avail + quote - sellerFee,
        rsv: walletsBefore.u0.quote.rsv,
      });
      expect(await wallet(ctx, 'u1', pair.baseCurrencyCode)).toEqual({
        avail: walletsBefore.u1.base.avail + base - buyerFee,
        rsv: walletsBefore.u1.base.rsv,
      });
      expect(await wallet(ctx, 'u1', pair.quoteCurrencyCode)).toEqual({
        avail: walletsBefore.u1.quote.avail - quote - takerPrice * (wanted - sold) * quoteScale,
        rsv: walletsBefore.u1.quote.rsv + takerPrice * (wanted - sold) * quoteScale,
      });
      expect(await ctx.redis.hgetall(ctx.keys.feesCollected())).toEqual({
        [pair.baseCurrencyCode]: String(buyerFee),
        [pair.quoteCurrencyCode]: String(sellerFee),
      });
    });
  });

  it("a batch that changes the book writes one entry: every accepted order's event in batch order, the next seq", async () => {
    await withMarkets(1, RANDOM_DEPOSITS, async ([{ ctx, pair }]) => {
      // an earlier call, so there is an entry and a seq before the batch
      await placeBatch(ctx, [limit('u2', pair, 'buy', 99_000, 1_000, 1)]);
      const before = await streamEntries(ctx);
      const prevSeq = Number(before[before.length - 1].fields.seq);
      expect(prevSeq).toBeGreaterThan(0);

      const orders = [
        limit('u0', pair, 'sell', 100_200, 3_000, 10),
        limit('u1', pair, 'buy', 99_500, 1_000, 11),
        limit('u1', pair, 'buy', 100_000, 900_000, 12), // not covered: rejected, no event
        limit('u2', pair, 'buy', 100_300, 2_000, 13),
        { ...limit('u0', pair, 'sell', 0, 500, 14), type: 'market', priceTicks: undefined } as PlaceSpotInput,
        limit('u2', pair, 'buy', 100_000, 900_000, 15), // rejected last: the entry's ts is still order 14's
      ];
      const replies = await placeBatch(ctx, orders);
      expect(replies.map((r) => r[0])).toEqual(['OK', 'OK', 'ERR', 'OK', 'OK', 'ERR']);

      const after = await streamEntries(ctx);
      expect(after).toHaveLength(before.length + 1);
      const entry = after[after.length - 1];
      expect(Number(entry.fields.seq)).toBe(prevSeq + 1);
      const accepted = orders.flatMap((o, i) =>
        replies[i][0] === 'OK' ? [{ o, id: String(replies[i][1]) }] : [],
      );
      expect(entry.fields.ts).toBe(String(accepted[accepted.length - 1].o.timestamp));

      const events = eventsOf(entry.fields);
      expect(events.filter((e) => e.e === 'accepted')).toEqual(
        accepted.map(({ o, id }) => ({
          e: 'accepted',
          id,
          u: o.userId,
          side: o.side,
          type: o.type,
          p: o.priceTicks ?? '',
          a: o.amountLots ?? '',
        })),
      );
      // each order's own events come right after its accepted event, before the next order's
      const firstEventOf = (id: string) => events.findIndex((e) => e.e === 'accepted' && e.id === id);
      const order = accepted.map(({ id }) => firstEventOf(id));
      expect(order).toEqual([...order].sort((a, b) => a - b));
      const takerTrade = events.findIndex((e) => e.e === 'trade' && e.tk === accepted[2].id);
      expect(takerTrade).toBeGreaterThan(firstEventOf(accepted[2].id));
      expect(takerTrade).toBeLessThan(firstEventOf(accepted[3].id));

      // the book events are the batch's final level totals, and the snapshot sits on this entry
      const book = await ctx.marketData.books.snapshot('spot', PAIR, 0);
      expect([book.seq, book.streamId]).toEqual([prevSeq + 1, entry.id]);
      const levels = (side: string) =>
        events.filter((e) => e.e === 'book' && e.side === side && e.q !== '0').map((e) => [e.p, e.q]);
      for (const [side, shown] of [
        ['bids', book.bids],
        ['asks', book.asks],
      ] as const) {
        for (const level of levels(side)) expect(shown).toContainEqual(level);
      }
    });
  });

  it('a level that several orders of a batch change is written once with the total one call per order leaves; a level emptied or refilled in the batch too', async () => {
    await withMarkets(2, RICH_DEPOSITS, async ([batched, alone]) => {
      const { pair } = batched;
      const before = [
        limit('u0', pair, 'sell', 100_100, 1_000, 1),
        limit('u0', pair, 'sell', 100_100, 2_000, 2),
        limit('u0', pair, 'sell', 100_200, 1_000, 3),
      ];
      const orders = [
        limit('u1', pair, 'buy', 100_100, 1_500, 10), // takes 100_100 in part, two fills
        limit('u1', pair, 'buy', 100_100, 1_500, 11), // empties 100_100
        limit('u2', pair, 'sell', 100_100, 700, 12), // a new level at the emptied price...
        limit('u1', pair, 'buy', 100_100, 700, 13), // ...taken whole: gone again
        limit('u2', pair, 'buy', 99_000, 400, 14), // a new bid level...
        limit('u0', pair, 'sell', 99_000, 400, 15), // ...taken whole: it comes and goes
        limit('u1', pair, 'buy', 100_200, 1_000, 16), // the level before the batch taken whole...
        limit('u2', pair, 'sell', 100_200, 1_000, 17), // ...and back to its total: a net change of 0
      ];
      for (const m of [batched, alone]) await placeBatch(m.ctx, before);
      const replies = await placeQueued(batched.ctx, orders);
      expect(replies.map((r) => r[0])).toEqual(orders.map(() => 'OK'));
      const oneByOne: ScriptReply[] = [];
      for (const o of orders) oneByOne.push(...(await placeQueued(alone.ctx, [o])));
      expect(replies).toEqual(oneByOne);
      expect(await stateOf(batched.ctx, USERS)).toEqual(await stateOf(alone.ctx, USERS));
      // the balance events are one a call (a user's wallet after it): the batch's last ones only
      const notBal = async (c: Ctx) => (await orderEvents(c)).filter((e) => e.e !== 'bal');
      expect(await notBal(batched.ctx)).toEqual(await notBal(alone.ctx));

      // the batch's book events: each touched level once, its total as the level hash holds it
      // after the call ('0' for a level gone), the level prices exactly the levels with lots
      const { ctx } = batched;
      const entries = await streamEntries(ctx);
      const bookEvents = eventsOf(entries[entries.length - 1].fields).filter((e) => e.e === 'book');
      const touched = (side: string) => bookEvents.filter((e) => e.side === side).map((e) => e.p).sort();
      expect(touched('asks')).toEqual(['100100', '100200']);
      expect(touched('bids')).toEqual(['99000']);
      expect(bookEvents.map((e) => e.q).sort()).toEqual(['0', '0', '1000']);
      for (const e of bookEvents) {
        const side = e.side as 'bids' | 'asks';
        expect(e.q).toBe((await ctx.redis.hget(ctx.keys.levelQty('spot', PAIR, side), e.p)) ?? '0');
      }
      for (const side of ['bids', 'asks'] as const) {
        const prices = await ctx.redis.zrange(ctx.keys.levels('spot', PAIR, side), '0', '-1');
        const totals = await ctx.redis.hgetall(ctx.keys.levelQty('spot', PAIR, side));
        expect(prices.sort()).toEqual(Object.keys(totals).sort());
        for (const q of Object.values(totals)) expect(Number(q)).toBeGreaterThan(0);
      }
    });
  });

  it('a batch whose every order is rejected writes no entry and changes no balance', async () => {
    await withMarkets(1, RANDOM_DEPOSITS, async ([{ ctx, pair }]) => {
      await placeBatch(ctx, [limit('u2', pair, 'buy', 100_000, 1_000, 1)]);
      const entriesBefore = await ctx.redis.xlen(streamKey(ctx));
      const stateBefore = await stateOf(ctx, USERS);
      const seqBefore = (await ctx.marketData.books.snapshot('spot', PAIR, 0)).seq;

      const replies = await placeQueued(ctx, [
        limit('u0', pair, 'buy', 100_000, 900_000, 2),
        limit('u1', pair, 'sell', 99_000, 1_000, 3, { postOnly: true }),
        limit('u2', pair, 'sell', 100_000, 900_000, 4, { clientOrderId: 'never' }),
      ]);
      expect(replies).toEqual([
        ['ERR', 'INSUFFICIENT_BALANCE', pair.quoteCurrencyCode],
        ['ERR', 'ORDER_POST_ONLY_WOULD_TAKE', ''],
        ['ERR', 'INSUFFICIENT_BALANCE', pair.baseCurrencyCode],
      ]);
      expect(await ctx.redis.xlen(streamKey(ctx))).toBe(entriesBefore);
      expect(await stateOf(ctx, USERS)).toEqual(stateBefore);
      expect((await ctx.marketData.books.snapshot('spot', PAIR, 0)).seq).toBe(seqBefore);
    });
  });

  it('20 concurrent SpotEngine.place calls on one pair all resolve, share calls, and answer as the same orders placed one by one', async () => {
    await withMarkets(2, RICH_DEPOSITS, async ([one, together]) => {
      const n = 20;
      const settle = (p: Promise<PlaceResult>) =>
        p.then(
          (r) => ({ result: r }),
          (e: unknown) => {
            if (e instanceof AppError) return { error: e.code };
            throw e;
          },
        );

      const sequential: Awaited<ReturnType<typeof settle>>[] = [];
      for (const o of randomOrders(one.pair, 11, n, { allAccepted: true }))
        sequential.push(await settle(one.ctx.spot.engine.place(o)));

      // counts the script calls; the context is thrown away afterwards
      const run = jest.spyOn(together.ctx.scripts, 'runOnce');
      const concurrent = await Promise.all(
        randomOrders(together.pair, 11, n, { allAccepted: true }).map((o) =>
          settle(together.ctx.spot.engine.place(o)),
        ),
      );
      const { numberOfKeys, keysPerItem } = together.ctx.scripts.byName.get('placeSpotOrders') as LuaScript;
      const sizes = run.mock.calls
        .filter((c) => c[0] === 'placeSpotOrders')
        .map((c) => (c[1].length - numberOfKeys) / keysPerItem);
      run.mockRestore();
      // every order went out, in fewer calls than orders; the first, on an idle pair, went alone
      expect(sizes.reduce((a, b) => a + b, 0)).toBe(n);
      expect(sizes.length).toBeLessThan(n);
      expect(sizes[0]).toBe(1);

      expect(concurrent).toEqual(sequential);
      // each placed, with an order id of its own
      const placedIds = concurrent.map((c) => ('result' in c && !c.result.duplicate ? c.result.order.id : c));
      expect(placedIds.every((id) => typeof id === 'string')).toBe(true);
      expect(new Set(placedIds).size).toBe(n);
      // and they did meet each other: not all of them simply rested
      expect(concurrent.some((c) => 'result' in c && c.result.order.filled !== '0')).toBe(true);
      expect(await stateOf(together.ctx, USERS)).toEqual(await stateOf(one.ctx, USERS));
    });
  });
});

/**
 * A market for the fault tests: a, b and m funded, m's ask at 90000 and b's own ask at 90001 (1000
 * lots each) resting; answers a limit order builder on it.
 */
async function faultMarket(ctx: Ctx): Promise<(userId: string, side: 'buy' | 'sell', price: string, lots: string) => PlaceSpotInput> {
  const pair = (await ctx.markets.store.getPair('spot', PAIR)) as Pair;
  for (const u of ['a', 'b', 'm']) {
    await depositOnMarket(ctx, pair, u, 'USDT', 1_000);
    await depositOnMarket(ctx, pair, u, 'BTC', 1);
  }
  const order = (userId: string, side: 'buy' | 'sell', price: string, lots: string): PlaceSpotInput => ({
    userId, pair, side, type: 'limit', priceTicks: price, amountLots: lots,
    postOnly: false, stp: 'NONE', clientOrderId: null, timestamp: 1,
  });
  await ctx.spot.engine.place(order('m', 'sell', '90000', '1000'));
  await ctx.spot.engine.place(order('b', 'sell', '90001', '1000'));
  return order;
}

/** `batch` in one call, its second order given a self-trade mode the service never sends (`withFault`), else its first alone. */
function placeWithFault(ctx: Ctx, batch: PlaceSpotInput[], withFault: boolean): Promise<ScriptReply[]> {
  const [keys, args] = ctx.spot.engine.placeArgs(withFault ? batch : batch.slice(0, 1));
  // it fills m's ask, then breaks on b's own
  if (withFault) args[9 + 10 + 7] = 'x';
  return ctx.scripts.run<ScriptReply[]>('placeSpotOrders', keys, args);
}

describe('a runtime error inside a batch', () => {
  it('leaves the orders before it placed in full, and answers ENGINE_ERROR for it and the rest', async () => {
    const ctx = await testContext();
    try {
      const pair = (await ctx.markets.store.getPair('spot', 'BTC_USDT')) as Pair;
      await depositOnMarket(ctx, pair, 'a', 'USDT', 20);
      const buy = (price: string, lots: string): PlaceSpotInput => ({
        userId: 'a', pair, side: 'buy', type: 'limit', priceTicks: price, amountLots: lots,
        postOnly: false, stp: 'NONE', clientOrderId: null, timestamp: 1,
      });
      // a market buy without a budget: input the service never sends, which breaks the script
      const malformed: PlaceSpotInput = { ...buy('', '10'), userId: 'b', type: 'market', priceTicks: undefined };
      const stream = ctx.keys.events('spot', 'BTC_USDT');
      const entriesBefore = await ctx.redis.xlen(stream);
      const replies = await ctx.scripts.run<ScriptReply[]>(
        'placeSpotOrders',
        ...ctx.spot.engine.placeArgs([buy('90000', '1000'), buy('100000', '10000'), malformed, buy('95000', '1000')]),
      );
      expect(replies.map((r) => r.slice(0, 2))).toEqual([
        ['OK', '1'], ['OK', '2'], ['ERR', 'ENGINE_ERROR'], ['ERR', 'ENGINE_ERROR'],
      ]);
      // both placed orders hold their reservations: 90000 x 1000 + 100000 x 10000 minor units
      const usdt = (await ctx.wallets.balances('a')).find((b) => b.currencyCode === 'USDT');
      const reserved = (90_000 * 1_000 + 100_000 * 10_000) / 1e8;
      expect(usdt?.reserved).toBeCloseTo(reserved, 8);
      expect(usdt?.available).toBeCloseTo(20 - reserved, 8);
      // and their events were published, with the book they built
      expect(await ctx.redis.xlen(stream)).toBe(entriesBefore + 1);
      const book = await ctx.marketData.books.snapshot('spot', 'BTC_USDT', 10);
      expect(book.bids.map(([p]) => p)).toHaveLength(2);
      // the caller of the failed order hears a 500 with no engine internals in it
      await expect(ctx.spot.engine.place(malformed)).rejects.toMatchObject({ status: 500, code: 'ENGINE_ERROR' });
    } finally {
      await ctx.cleanup();
    }
  });

  it('leaves no trace of an order that fails after it met makers: balances, book, makers, events and history as if it never came', async () => {
    // two markets built alike; the second never sees the failing order
    const faulty = await testContext();
    const clean = await testContext();
    try {
      const run = async (ctx: Ctx, withFault: boolean) => {
        const order = await faultMarket(ctx);
        const batch = [order('a', 'buy', '80000', '1000'), { ...order('b', 'buy', '90001', '2000'), clientOrderId: 'x1' }, order('a', 'buy', '80001', '1000')];
        return placeWithFault(ctx, batch, withFault);
      };
      const replies = await run(faulty, true);
      expect(replies.map((r) => r.slice(0, 2))).toEqual([['OK', '3'], ['ERR', 'ENGINE_ERROR'], ['ERR', 'ENGINE_ERROR']]);
      await run(clean, false);
      const users = ['a', 'b', 'm'];
      expect(await stateOf(faulty, users)).toEqual(await stateOf(clean, users));
      expect(await orderEvents(faulty)).toEqual(await orderEvents(clean));
      const history = (c: Ctx) => c.redis.zcard(c.keys.tradeHistory('spot', PAIR));
      expect([await history(faulty), await history(clean)]).toEqual([0, 0]);
      // m's ask is whole again: its record, its place in the book and its owner's open orders
      const book = await faulty.marketData.books.snapshot('spot', PAIR, 10);
      expect(book.asks).toEqual([['90000', '1000'], ['90001', '1000']]);
    } finally {
      await faulty.cleanup();
      await clean.cleanup();
    }
  });

  it('undoes an order that follows a trade of its own batch on the same level: the level, the maker and the trade ids as the earlier order left them', async () => {
    // the undo log notes what each write replaced and puts it back newest first: the failing order
    // meets the maker and the level an earlier order of its batch already changed, and takes trade
    // ids after the batch's first
    const faulty = await testContext();
    const clean = await testContext();
    try {
      const run = async (ctx: Ctx, withFault: boolean) => {
        const order = await faultMarket(ctx);
        // a takes part of m's ask; b's buy takes the rest of it, then breaks on b's own ask
        const replies = await placeWithFault(ctx, [order('a', 'buy', '90000', '400'), order('b', 'buy', '90001', '2000')], withFault);
        // the next trade, in a call of its own, takes the next trade id
        const after = await ctx.spot.engine.place(order('a', 'buy', '90000', '100'));
        return { replies, after: after.order };
      };
      const withFault = await run(faulty, true);
      expect(withFault.replies.map((r) => r.slice(0, 2))).toEqual([['OK', '3'], ['ERR', 'ENGINE_ERROR']]);
      const without = await run(clean, false);
      expect(withFault.after).toEqual(without.after);
      const users = ['a', 'b', 'm'];
      expect(await stateOf(faulty, users)).toEqual(await stateOf(clean, users));
      expect(await orderEvents(faulty)).toEqual(await orderEvents(clean));
      const history = (c: Ctx) => c.redis.zrange(c.keys.tradeHistory('spot', PAIR), '0', '-1');
      expect(await history(faulty)).toEqual(await history(clean));
      const book = await faulty.marketData.books.snapshot('spot', PAIR, 10);
      expect(book.asks).toEqual([['90000', '500'], ['90001', '1000']]);
    } finally {
      await faulty.cleanup();
      await clean.cleanup();
    }
  });
});
