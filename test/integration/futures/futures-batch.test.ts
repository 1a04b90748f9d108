import type { ScriptReply } from '../../../src/platform/redis/reply';
import type { CreateFuturesInput } from '../../../src/futures/futures-engine';
import type { StpMode } from '../../../src/domain/order';
import { AppError } from '../../../src/domain/errors';
import { FuturesScriptKeys } from '../../../src/futures/futures-script-keys';
import { FuturesKeyring } from '../../../src/futures/futures-keyring';
import { rng } from '../../support/random-trading';
import { testContext } from '../../support/harness';
import { parseEvents } from '../../../src/platform/market-event';
import { allKeys } from '../../../src/platform/redis/scan-keys';
import { userWithHome } from '../shards/shard-fixture';

/**
 * createFuturesOrders with several orders in one call (group commit, docs/futures.md) against the
 * real Redis: a batch must end exactly where the same orders end one call each. Expected values
 * come from a one-per-call run on a second, fresh context (its own key prefix, so its own id
 * counters and account ids), never from constants: the whole key space of both is compared.
 */
type Ctx = Awaited<ReturnType<typeof testContext>>;

const PAIR = 'BTC_USDT';
const USERS = ['u0', 'u1', 'u2'];
/**
 * The users behind the names u0..u2: with several engine shards an account is registered at its
 * user's home (docs/futures.md), so each name is a user at home on the market's shard (with one
 * shard, the first name tried), the same in every context (a home depends on the name alone).
 */
const NAMES: Record<string, string> = {};
const MID = 500_000; // 50,000.0 in ticks
const TS = 1_700_000_000_000;

/**
 * A fresh context with one funded futures account per user (USDT amounts); returns the account ids.
 * `like`: another context's accounts, whose ids the new ones ask for. With several engine shards
 * an account's id is drawn at random (docs/futures.md), so the second context is given the first's
 * draws (each names the same home: a user's home depends on the name alone); the accounts are
 * still made by the product's own path and script (which refuses an id it finds taken).
 */
async function market(margins: Record<string, number>, like?: Record<string, string>): Promise<{ ctx: Ctx; accounts: Record<string, string> }> {
  const ctx = await testContext();
  const shard = ctx.futures.keyring.all().indexOf(ctx.futures.keyring.ofPair(PAIR));
  const accounts: Record<string, string> = {};
  for (const [name, usdt] of Object.entries(margins)) {
    // the user whose home is the market's shard: the account's margin is where the engine script
    // runs (looked up in every context, which records the same homes in each)
    const user = await userWithHome(ctx, shard, `${name}-`);
    NAMES[name] = user;
    await ctx.wallets.deposit(user, 'USDT', usdt);
    const draw = jest.spyOn(ctx.futures.engine, 'newAccountId');
    // one shard: no draw, the counter's id as before (both contexts count alike)
    if (like && ctx.futures.keyring.all().length > 1) draw.mockReturnValueOnce(like[name]);
    const a = await ctx.futures.accounts.create(user, { name: 'main', currencyCode: 'USDT', leverage: 10 });
    draw.mockRestore();
    await ctx.futures.accounts.transfer(user, {
      fromFuturesAccountId: null, toFuturesAccountId: a.id, currencyCode: 'USDT', amount: usdt,
    });
    accounts[name] = String(a.id);
  }
  return { ctx, accounts };
}

async function withMarkets<T>(margins: Record<string, number>, body: (a: Ctx, b: Ctx, accts: Record<string, string>) => Promise<T>) {
  const one = await market(margins);
  const two = await market(margins, one.accounts);
  try {
    // both contexts were built the same way (the second asked for the first's ids), so their account ids agree
    expect(two.accounts).toEqual(one.accounts);
    return await body(one.ctx, two.ctx, one.accounts);
  } finally {
    await one.ctx.cleanup();
    await two.ctx.cleanup();
  }
}

function order(accounts: Record<string, string>, user: string, o: Partial<CreateFuturesInput>): CreateFuturesInput {
  return {
    userId: NAMES[user], pairCode: PAIR, accountId: accounts[user], side: 'buy', isMarket: false, amountLots: '10',
    postOnly: false, stp: 'NONE', clientOrderId: null, timestamp: TS, ...o,
  };
}

/** Random orders of the three users around MID: limits that rest and cross, markets, TP/SL, post-only, STP, repeated clientOrderIds. */
function randomOrders(accounts: Record<string, string>, seed: number, n: number): CreateFuturesInput[] {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
  const stps: StpMode[] = ['NONE', 'EXPIRE_TAKER', 'EXPIRE_MAKER', 'EXPIRE_BOTH'];
  return Array.from({ length: n }, () => {
    const side = pick(['buy', 'sell'] as const);
    const isMarket = r() < 0.15;
    const ticks = MID + Math.floor(r() * 41) - 20;
    const tp = r() < 0.2 ? String(side === 'buy' ? ticks + 500 : ticks - 500) : undefined;
    const sl = r() < 0.2 ? String(side === 'buy' ? ticks - 500 : ticks + 500) : undefined;
    return order(accounts, pick(USERS), {
      side, isMarket, priceTicks: isMarket ? undefined : String(ticks), amountLots: String(10 * (1 + Math.floor(r() * 5))),
      tpTicks: tp, slTicks: sl, postOnly: !isMarket && r() < 0.15, stp: pick(stps),
      clientOrderId: r() < 0.3 ? `c${Math.floor(r() * 4)}` : null,
    });
  });
}

function batch(ctx: Ctx, orders: CreateFuturesInput[]): Promise<ScriptReply[]> {
  const { keys, args } = ctx.futures.engine.createArgs(orders);
  return ctx.scripts.run<ScriptReply[]>('createFuturesOrders', keys, args);
}

async function oneByOne(ctx: Ctx, orders: CreateFuturesInput[]): Promise<ScriptReply[]> {
  const out: ScriptReply[] = [];
  for (const o of orders) out.push(...(await batch(ctx, [o])));
  return out;
}

/**
 * Every key of the context by name without the prefix: books, levels, orders, accounts, indices,
 * fees, insurance, counters, trade records. Left out: the event streams (compared by their events),
 * the book sequence and the trade history's time index (one step per call, so one per batch),
 * operation records, transfer records, and the accounts' creation time (the clock's, not the orders').
 */
async function stateOf(ctx: Ctx): Promise<Record<string, unknown>> {
  const prefix = ctx.keys.engine.slice(0, ctx.keys.engine.indexOf(':'));
  const names = (await allKeys(ctx.redis, `${prefix}*`)).sort();
  const out: Record<string, unknown> = {};
  for (const name of names) {
    const type = await ctx.redis.type(name);
    const short = name.slice(prefix.length);
    if (type === 'stream' || short.includes(':op:') || short.includes(':tradetimes:')) continue;
    // with several engine shards: the bookkeeping of the transfers that funded the wallets (random ids, clock times)
    if (/:(xfer|xcredit|xpend):|:xver$|:escrow:touched$/.test(short)) continue;
    if (name === ctx.keys.bookSeq('futures', PAIR)) continue;
    if (type === 'string') out[short] = await ctx.redis.get(name);
    else if (type === 'hash') {
      const h = await ctx.redis.hgetall(name);
      if (short.includes(':facct:')) delete h.cts;
      out[short] = h;
    }
    else if (type === 'set') out[short] = (await ctx.redis.smembers(name)).sort();
    else if (type === 'zset') out[short] = await ctx.redis.zrange(name, '0', '-1', 'WITHSCORES');
    else if (type === 'list') out[short] = await ctx.redis.lrange(name, 0, -1);
    else out[short] = type;
  }
  return out;
}

type Event = Record<string, string>;

/** The market stream: its entries, and every event but the book's across them in order. */
async function eventsOf(ctx: Ctx): Promise<{ entries: number; events: Event[] }> {
  const entries = await ctx.redis.xrange(ctx.keys.events('futures', PAIR), '-', '+');
  const events: Event[] = [];
  for (const [, flat] of entries) {
    const i = flat.indexOf('ev');
    if (i >= 0) events.push(...(parseEvents(flat[i + 1]) as Event[]).filter((e) => e.e !== 'book'));
  }
  return { entries: entries.length, events };
}

const tagOf = (r: ScriptReply) => r[0];

describe('createFuturesOrders: a batch equals its orders placed one call each', () => {
  it.each([1, 2, 3, 4])('random batch, seed %i: replies, book, accounts, positions, fees, events', async (seed) => {
    await withMarkets({ u0: 40, u1: 15, u2: 80 }, async (a, b, accounts) => {
      // a book to trade against, the same on both
      const seedBook = randomOrders(accounts, 100 + seed, 12);
      await oneByOne(a, seedBook);
      await oneByOne(b, seedBook);
      const orders = randomOrders(accounts, seed, 30);
      const entriesBefore = [(await eventsOf(a)).entries, (await eventsOf(b)).entries];
      const together = await batch(a, orders);
      const alone = await oneByOne(b, orders);
      expect(together).toEqual(alone);
      // the batch was not trivial: some placed, some refused, some repeats, some trades
      const tags = together.map(tagOf);
      expect(tags).toContain('OK');
      expect(tags.filter((t) => t !== 'OK').length).toBeGreaterThan(0);
      expect(await stateOf(a)).toEqual(await stateOf(b));
      const ea = await eventsOf(a);
      const eb = await eventsOf(b);
      expect(ea.events).toEqual(eb.events);
      expect(ea.events.some((e) => e.e === 'trade')).toBe(true);
      // one entry for the batch, where one call each wrote one per order that did something
      expect(ea.entries - entriesBefore[0]).toBe(1);
      expect(eb.entries - entriesBefore[1]).toBe(together.filter((r) => r[0] === 'OK').length);
    });
  });
});

describe('createFuturesOrders: checks within a batch', () => {
  it('counts what the earlier orders of the batch reserved in the margin check', async () => {
    await withMarkets({ u0: 7 }, async (a, b, accounts) => {
      // 10 lots at 50,000.0 at 10x: 5 USDT margin each, with fees and the unit per lot; 7 USDT covers one
      const buy = (ticks: number) => order(accounts, 'u0', { priceTicks: String(ticks) });
      const orders = [buy(MID), buy(MID - 1)];
      const together = await batch(a, orders);
      expect(together.map(tagOf)).toEqual(['OK', 'ERR']);
      expect(together[1]).toEqual(['ERR', 'INSUFFICIENT_MARGIN', expect.stringMatching(/^[1-9][0-9]*$/)]);
      // alone, the second is covered
      expect((await batch(b, [orders[1]])).map(tagOf)).toEqual(['OK']);
    });
  });

  it('counts a fill of an earlier order of the batch: the position it opened and the maker it consumed', async () => {
    await withMarkets({ u0: 40, u1: 40 }, async (a, b, accounts) => {
      const orders = [
        order(accounts, 'u0', { side: 'sell', priceTicks: String(MID), amountLots: '20' }),
        order(accounts, 'u1', { side: 'buy', priceTicks: String(MID), amountLots: '10' }),
        order(accounts, 'u1', { side: 'buy', isMarket: true, amountLots: '10' }),
        order(accounts, 'u1', { side: 'buy', isMarket: true, amountLots: '10' }),
      ];
      const together = await batch(a, orders);
      expect(together).toEqual(await oneByOne(b, orders));
      // the last market order found the book empty, as it would alone
      expect(together[3]).toEqual(['ERR', 'NO_LIQUIDITY', '']);
      expect(await stateOf(a)).toEqual(await stateOf(b));
    });
  });

  it('indexes a position its resting close order reduces, then ends, within the batch, as one call each would', async () => {
    await withMarkets({ u0: 40, u1: 40, u2: 40 }, async (a, b, accounts) => {
      // on both: u0 long 20 lots (a position in force), its close order resting at MID + 10
      const setup = [
        order(accounts, 'u0', { side: 'buy', priceTicks: String(MID), amountLots: '20' }),
        order(accounts, 'u1', { side: 'sell', priceTicks: String(MID), amountLots: '20' }),
      ];
      const [placed] = await oneByOne(a, setup);
      await oneByOne(b, setup);
      const position = { id: String(placed[1]), pair: PAIR, acct: accounts.u0 };
      for (const ctx of [a, b]) await ctx.futures.engine.close(NAMES.u0, position, String(MID + 10), TS, null);
      const inIndex = (ctx: Ctx) => ctx.redis.zrange(ctx.keys.futuresTrigger(PAIR, 'liqL'), '0', '-1');
      expect(await inIndex(a)).toContain(position.id);
      // the batch: u2 buys 10 of the close order (the position shrinks), then 10 more (it closes),
      // then opens a long of its own on u1's resting sell
      const orders = [
        order(accounts, 'u2', { side: 'buy', priceTicks: String(MID + 10), amountLots: '10' }),
        order(accounts, 'u2', { side: 'buy', priceTicks: String(MID + 10), amountLots: '10' }),
        order(accounts, 'u1', { side: 'sell', priceTicks: String(MID + 20), amountLots: '10' }),
        order(accounts, 'u0', { side: 'buy', priceTicks: String(MID + 20), amountLots: '10' }),
      ];
      const together = await batch(a, orders);
      expect(together).toEqual(await oneByOne(b, orders));
      expect(together.map(tagOf)).toEqual(['OK', 'OK', 'OK', 'OK']);
      // the closed position left the index; every key, the trigger indices among them, as alone
      expect(await inIndex(a)).not.toContain(position.id);
      expect(await stateOf(a)).toEqual(await stateOf(b));
    });
  });

  it('answers a clientOrderId repeated within a batch with the first order, once placed', async () => {
    await withMarkets({ u0: 100, u1: 100 }, async (a, b, accounts) => {
      const orders = [
        order(accounts, 'u0', { priceTicks: String(MID - 100), clientOrderId: 'x' }),
        order(accounts, 'u0', { priceTicks: String(MID - 200), clientOrderId: 'x' }),
        order(accounts, 'u1', { priceTicks: String(MID - 300), clientOrderId: 'x' }),
        order(accounts, 'u0', { priceTicks: String(MID - 400), clientOrderId: 'x' }),
      ];
      const together = await batch(a, orders);
      expect(together.map(tagOf)).toEqual(['OK', 'DUP', 'OK', 'DUP']);
      const firstId = together[0][1];
      expect(firstId).toMatch(/^[0-9]+$/);
      expect(together[1][1]).toBe(firstId);
      expect(together[3][1]).toBe(firstId);
      // another user's clientOrderId is its own
      expect(together[2][1]).not.toBe(firstId);
      expect(together).toEqual(await oneByOne(b, orders));
      expect(await stateOf(a)).toEqual(await stateOf(b));
    });
  });
});

describe('createFuturesOrders exactly once: the reply as its record\'s text', () => {
  it('answers the same lists on a first run (the record\'s text) and on a repeat (the record decoded), whatever a clientOrderId holds', async () => {
    await withMarkets({ u0: 1_000, u1: 1_000 }, async (a, _b, accounts) => {
      // strings JSON must escape, bytes above 126, a slash, and plain ones; an order of another's
      // account (ERR), a repeated clientOrderId (DUP) and one without (its clid '')
      const clids = ['plain-1', 'q"uote', 'back\\slash', 'sl/ash', 'ünï ✓', 'tab\there', 'ctl\u0001x', 'del\u007fx'];
      const orders = [
        ...clids.map((clientOrderId, i) => order(accounts, i % 2 ? 'u1' : 'u0', { priceTicks: String(MID - 10 - i), clientOrderId })),
        order(accounts, 'u0', { priceTicks: String(MID - 50), clientOrderId: null }),
        order(accounts, 'u0', { priceTicks: String(MID - 60), clientOrderId: 'back\\slash' }),
        { ...order(accounts, 'u0', { priceTicks: String(MID - 70) }), accountId: accounts.u1 },
      ];
      const { keys, args } = a.futures.engine.createArgs(orders);
      const op = { key: a.keys.operation(`batch-text-${Date.now()}`), ttlSeconds: 60, keyed: false };
      const first = await a.scripts.runOnce<ScriptReply[]>('createFuturesOrders', keys, args, op);
      const repeat = await a.scripts.runOnce<ScriptReply[]>('createFuturesOrders', keys, args, op);
      expect(first).toEqual(repeat);
      expect(first.map(tagOf)).toEqual([...clids.map(() => 'OK'), 'OK', 'DUP', 'ERR']);
      expect(first[clids.length + 1][1]).toBe(first[2][1]);
      // each placed order answers its own clientOrderId, byte for byte
      expect(first.slice(0, clids.length).map((r) => r[2])).toEqual(clids);
      expect(first[clids.length][2]).toBe('');
      expect(first[clids.length + 2][1]).toBe('ACCOUNT_NOT_FOUND');
      // the record is JSON whose lists are the reply's
      expect(JSON.parse((await a.redis.get(op.key)) as string)).toEqual(first);
    });
  });
});

describe('FuturesEngine.create under concurrency', () => {
  it('groups concurrent orders of one market into fewer calls and ends where sequential calls end', async () => {
    await withMarkets({ u0: 1_000, u1: 1_000, u2: 1_000 }, async (a, b, accounts) => {
      const orders = randomOrders(accounts, 7, 40).map((o) => ({ ...o, clientOrderId: null, postOnly: false }));
      const settle = (p: Promise<unknown>) => p.then((r) => ({ r }), (e: unknown) => ({ e: e instanceof AppError ? e.code : String(e) }));
      const sequential = [];
      for (const o of orders) sequential.push(await settle(b.futures.engine.create(o)));
      const run = jest.spyOn(a.scripts, 'runOnce');
      const concurrent = await Promise.all(orders.map((o) => settle(a.futures.engine.create(o))));
      // KEYS: the market's, then each order's (src/futures/futures-script-keys.ts)
      const scriptKeys = new FuturesScriptKeys(FuturesKeyring.of(a.keys));
      const perOrder = scriptKeys.createOrderItem(PAIR, 'u', '1').length;
      const sizes = run.mock.calls
        .filter((c) => c[0] === 'createFuturesOrders')
        .map((c) => (c[1].length - scriptKeys.market(PAIR).length) / perOrder);
      run.mockRestore();
      expect(sizes.reduce((s, x) => s + x, 0)).toBe(orders.length);
      expect(sizes.length).toBeLessThan(orders.length);
      expect(sizes[0]).toBe(1);
      expect(concurrent).toEqual(sequential);
      expect(await stateOf(a)).toEqual(await stateOf(b));
      expect((await eventsOf(a)).events).toEqual((await eventsOf(b)).events);
    });
  });
});

describe('a runtime error inside a batch', () => {
  it('leaves no trace of the failing order, keeps the ones before it whole, and answers ENGINE_ERROR for it and the rest', async () => {
    await withMarkets({ u0: 100, u1: 100 }, async (a, b, accounts) => {
      // u0's own resting sell, which the broken order meets first
      const maker = order(accounts, 'u0', { side: 'sell', priceTicks: String(MID) });
      const first = order(accounts, 'u1', { priceTicks: String(MID - 10) });
      // a self-trade prevention mode the service never sends: the script fails when the order meets
      // its owner's maker, after it took its id, reserved its margin and announced itself
      const broken = order(accounts, 'u0', { priceTicks: String(MID), stp: 'BOGUS' as StpMode });
      const after = order(accounts, 'u1', { priceTicks: String(MID - 20) });
      await batch(a, [maker]);
      await batch(b, [maker]);
      const before = await eventsOf(a);
      const replies = await batch(a, [first, broken, after]);
      expect(replies.map((r) => (r[0] === 'OK' ? r : r.slice(0, 2)))).toEqual([['OK', '2', '', '10'], ['ERR', 'ENGINE_ERROR'], ['ERR', 'ENGINE_ERROR']]);
      // the same as placing only the first: margins, book, orders, indices, the id counter
      await batch(b, [first]);
      expect(await stateOf(a)).toEqual(await stateOf(b));
      const events = await eventsOf(a);
      expect(events.entries).toBe(before.entries + 1);
      expect(events.events).toEqual((await eventsOf(b)).events);
      // the next order takes the id the broken one gave back
      const next = await batch(a, [after]);
      expect(next).toEqual(await batch(b, [after]));
      // the caller of the broken order hears a 500 with no engine internals in it
      await expect(a.futures.engine.create(broken)).rejects.toMatchObject({ status: 500, code: 'ENGINE_ERROR' });
    });
  });

  it('asks a maker\'s account again in the next call whether it keeps aggregates (it may have been tracked since)', async () => {
    await withMarkets({ u0: 100, u1: 100 }, async (a, _b, accounts) => {
      // u0's resting sell, filled in two calls; u0's account is tracked between them
      await batch(a, [order(accounts, 'u0', { side: 'sell', priceTicks: String(MID), amountLots: '20' })]);
      await batch(a, [order(accounts, 'u1', { priceTicks: String(MID) })]);
      await a.futures.accountStats.track(accounts.u0);
      await batch(a, [order(accounts, 'u1', { priceTicks: String(MID) })]);
      // the aggregates the fills kept are those a rebuild from the orders gives
      const text = (x: unknown) => JSON.stringify(x, (_k, v) => (v instanceof Map ? [...v] : typeof v === 'bigint' ? String(v) : v));
      const [kept] = await a.futures.accountStats.read([accounts.u0]);
      await a.futures.accountStats.rebuild(accounts.u0);
      const [rebuilt] = await a.futures.accountStats.read([accounts.u0]);
      expect(kept.trades).toBeGreaterThan(0);
      expect(text(kept)).toBe(text(rebuilt));
    });
  });

  it('in a call\'s last writes leaves the next call nothing of it (the batch\'s tables are kept across calls)', async () => {
    await withMarkets({ u0: 100, u1: 100 }, async (a, b, accounts) => {
      const maker = order(accounts, 'u0', { side: 'sell', priceTicks: String(MID) });
      const taker = order(accounts, 'u1', { priceTicks: String(MID) });
      const next = order(accounts, 'u0', { side: 'sell', priceTicks: String(MID + 10) });
      for (const ctx of [a, b]) await batch(ctx, [maker]);
      // the market's stream as a string: the taker's call matches and writes, then its XADD fails
      const stream = a.keys.events('futures', PAIR);
      await a.redis.del(stream);
      await a.redis.set(stream, 'not a stream');
      await expect(batch(a, [taker])).rejects.toThrow(/WRONGTYPE/);
      await a.redis.del(stream);
      await batch(b, [taker]);
      await b.redis.del(b.keys.events('futures', PAIR));
      // the next call answers and announces exactly what the same call does after a clean one
      expect(await batch(a, [next])).toEqual(await batch(b, [next]));
      const [ea, eb] = [await eventsOf(a), await eventsOf(b)];
      expect(ea.entries).toBe(1);
      expect(ea.events).toEqual(eb.events);
      // a resting order: accepted, and the private stream's fixed fields (new) and first state (st)
      expect(ea.events.map((e) => e.e)).toEqual(['accepted', 'new', 'st']);
    });
  });
});
