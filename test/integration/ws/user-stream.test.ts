import jwt from 'jsonwebtoken';
import request from 'supertest';
import type { Express } from 'express';
import { startWsRole } from '../../../src/transport/ws/ws-role';
import { bearer, createApp, TEST_SECRET, testContext, tokenFor } from '../../support/harness';
import { WsClient, type Msg } from '../../support/ws-client';
import { fromMinor } from '../../../src/domain/decimal';
import type { PlaceSpotInput } from '../../../src/spot/spot-engine';
import { shardOfPair } from '../../../src/domain/market';
import { userWithHome } from '../shards/shard-fixture';
import { UserStateReader } from '../../../src/transport/ws/user-state';
import { parseEntry } from '../../../src/platform/market-event';

type Ctx = Awaited<ReturnType<typeof testContext>>;
type Row = Record<string, unknown>;
let ctx: Ctx;
let app: Express;
let gw: { port: number; close(): Promise<void> };
const clients: WsClient[] = [];
let n = 0;
/** A user of this test alone, so no earlier test's state is in a snapshot. */
const fresh = (name: string) => `${name}${++n}`;

async function connect(port = gw.port): Promise<WsClient> {
  const c = await WsClient.connect(port, undefined, '/ws/user');
  clients.push(c);
  return c;
}

/** A connection signed in as `user`, subscribed to `channels`, each snapshot received. */
async function signedIn(user: string, channels: string[], port = gw.port): Promise<WsClient> {
  const c = await connect(port);
  c.send({ op: 'auth', token: tokenFor(user) });
  await c.waitFor((m) => m.op === 'auth' && m.ok === true);
  for (const channel of channels) {
    c.send({ op: 'subscribe', channel });
    await c.waitFor((m) => m.channel === channel && m.type === 'snapshot');
  }
  return c;
}

const frames = (c: WsClient, channel: string, type = 'update') =>
  c.messages.filter((m) => m.channel === channel && m.type === type).map((m) => m.data as Row);
const snapshotOf = (c: WsClient, channel: string) => frames(c, channel, 'snapshot').pop() as unknown as Row[];

async function until(check: () => boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

const post = (user: string, path: string, body: Row) => request(app).post(path).set('Authorization', bearer(user)).send(body);
const get = (user: string, path: string) => request(app).get(path).set('Authorization', bearer(user));

async function deposit(user: string, currencyCode: string, amount: number) {
  const r = await request(app).post('/api/admin/deposits').set('Authorization', bearer('admin', true)).send({ userId: user, currencyCode, amount });
  expect(r.status).toBe(200);
}

async function spotOrder(user: string, side: string, price: number, amount: number): Promise<Row> {
  const r = await post(user, '/api/orders', { currencyPairCode: 'BTC_USDT', side, type: 'limit', price, amount });
  expect(r.status).toBe(200);
  return r.body as Row;
}

/** A user at home on BTC_USDT's shard: an engine call has no transfer to fund escrow elsewhere (ENGINE_SHARDS=3 on the cluster run). */
async function onMarketShard(name: string): Promise<string> {
  const pair = (await ctx.markets.store.getPair('spot', 'BTC_USDT'))!;
  return userWithHome(ctx, shardOfPair(pair), fresh(name));
}

/** Every frame's seq, in arrival order, is 1, 2, 3, …: no gap, no repeat. */
function expectNoGap(c: WsClient) {
  expect(c.messages.map((m) => m.seq)).toEqual(c.messages.map((_m, i) => i + 1));
}

beforeAll(async () => {
  ctx = await testContext();
  app = createApp(ctx);
  gw = await startWsRole(ctx, { port: 0 });
});

afterAll(async () => {
  for (const c of clients) c.close();
  await gw.close();
  await ctx.cleanup();
});

describe('private stream authentication', () => {
  const closedWith4401 = async (c: WsClient) => {
    await until(() => c.closed);
    expect(c.closeCode).toBe(4401);
    expect(c.messages.some((m: Msg) => m.op === 'error' && m.code === 'UNAUTHORIZED')).toBe(true);
  };

  it('closes with 4401 on a bad token, a missing token and a first frame that is no auth', async () => {
    const bad = await connect();
    bad.send({ op: 'auth', token: jwt.sign({ sub: 'alice' }, 'another-secret') });
    const missing = await connect();
    missing.send({ op: 'auth' });
    const noAuth = await connect();
    noAuth.send({ op: 'subscribe', channel: 'orders' });
    const badSub = await connect();
    badSub.send({ op: 'auth', token: jwt.sign({ sub: 'bad:sub' }, TEST_SECRET) });
    for (const c of [bad, missing, noAuth, badSub]) await closedWith4401(c);
  });

  it('closes with 4401 when the token expires, unless a fresh token extends it', async () => {
    const user = fresh('exp');
    const soon = (s: number) => jwt.sign({ sub: user, exp: Math.floor(Date.now() / 1000) + s }, TEST_SECRET);
    const expiring = await connect();
    expiring.send({ op: 'auth', token: soon(1) });
    await expiring.waitFor((m) => m.op === 'auth' && m.ok === true);
    const extended = await connect();
    extended.send({ op: 'auth', token: soon(1) });
    await extended.waitFor((m) => m.op === 'auth' && m.ok === true);
    extended.send({ op: 'auth', token: soon(60) });
    await until(() => extended.messages.filter((m) => m.op === 'auth' && m.ok).length === 2);
    // the REST API's token rules hold here too: one that lives longer than JWT_MAX_AGE_SECONDS is refused
    const tooLong = await connect();
    tooLong.send({ op: 'auth', token: soon(2 * 86_400) });
    await closedWith4401(expiring);
    await closedWith4401(tooLong);
    await new Promise((r) => setTimeout(r, 1500));
    expect(extended.closed).toBe(false);
    // a token of someone else cannot take the connection over
    extended.send({ op: 'auth', token: tokenFor(fresh('other')) });
    await closedWith4401(extended);
  });
});

describe('private stream token lifetimes', () => {
  it('a token good for 60 days (where the deployment allows it) keeps the connection: past what one timer holds', async () => {
    const longCtx = await testContext({ JWT_MAX_AGE_SECONDS: String(90 * 86_400) });
    const longGw = await startWsRole(longCtx, { port: 0 });
    try {
      const iat = Math.floor(Date.now() / 1000);
      const c = await connect(longGw.port);
      c.send({ op: 'auth', token: jwt.sign({ sub: fresh('long'), iat, exp: iat + 60 * 86_400 }, TEST_SECRET) });
      await c.waitFor((m) => m.op === 'auth' && m.ok === true);
      await new Promise((r) => setTimeout(r, 500));
      expect(c.closed).toBe(false);
      c.close();
    } finally {
      await longGw.close();
      await longCtx.cleanup();
    }
  });
});

describe('private stream channels', () => {
  it('subscriptions sent right behind the auth frame are answered once the token is verified', async () => {
    const user = fresh('eager');
    await deposit(user, 'USDT', 7);
    const c = await connect();
    c.send({ op: 'auth', token: tokenFor(user) });
    c.send({ op: 'subscribe', channel: 'balances' });
    c.send({ op: 'subscribe', channel: 'orders' });
    await c.waitFor((m) => m.channel === 'orders' && m.type === 'snapshot');
    // acks come at once, snapshots when read: each in the order asked
    expect(c.messages[0]).toMatchObject({ op: 'auth', ok: true, userId: user });
    expect(c.messages.filter((m) => m.op === 'subscribed').map((m) => m.channel)).toEqual(['balances', 'orders']);
    expect(c.messages.filter((m) => m.type === 'snapshot').map((m) => m.channel)).toEqual(['balances', 'orders']);
    expect(c.messages).toHaveLength(5);
    expect(snapshotOf(c, 'balances')).toEqual([{ account: 'wallet', currencyCode: 'USDT', available: 7, reserved: 0 }]);
    expectNoGap(c);
  });

  it('snapshots equal the REST reads', async () => {
    const user = fresh('snap');
    await deposit(user, 'USDT', 10_000);
    await deposit(user, 'BTC', 2);
    await spotOrder(user, 'buy', 90, 1);
    await spotOrder(user, 'sell', 200, 0.5);
    const c = await signedIn(user, ['orders', 'balances', 'positions', 'fills']);
    const rest = (await get(user, '/api/orders').query({ pageSize: 500 })).body.items as Row[];
    const open = rest.filter((o) => o.status === 'open' || o.status === 'partiallyFilled').reverse();
    expect(snapshotOf(c, 'orders').map(({ kind, updateId, ...o }) => {
      expect(kind).toBe('spot');
      expect(typeof updateId).toBe('number');
      return o;
    })).toEqual(open);
    const wallet = (await get(user, '/api/wallet/balances')).body as Row[];
    expect(snapshotOf(c, 'balances')).toEqual(wallet.map((b) => ({ account: 'wallet', ...b })));
    expect(snapshotOf(c, 'positions')).toEqual([]);
    expect(snapshotOf(c, 'fills')).toEqual([]);
    expectNoGap(c);
  });

  it('sends every change of an order, both sides of each fill and each balance change, in order', async () => {
    const maker = fresh('maker');
    const taker = fresh('taker');
    await deposit(maker, 'BTC', 1);
    await deposit(taker, 'USDT', 1_000);
    const m = await signedIn(maker, ['orders', 'fills', 'balances']);
    const t = await signedIn(taker, ['orders', 'fills', 'balances']);
    const statuses = (c: WsClient, id: unknown) => frames(c, 'orders').filter((o) => o.id === id).map((o) => o.status);
    // each step waits for the maker's frame of the one before, so every state is there to be seen
    const seen = (id: unknown, count: number) => until(() => statuses(m, id).length >= count);
    const sell = await spotOrder(maker, 'sell', 100, 0.5);
    await seen(sell.id, 1);
    const buy1 = await spotOrder(taker, 'buy', 100, 0.2);
    await seen(sell.id, 2);
    const buy2 = await spotOrder(taker, 'buy', 100, 0.3);
    await seen(sell.id, 3);
    const rest = await spotOrder(maker, 'sell', 150, 0.1);
    await seen(rest.id, 1);
    expect((await request(app).delete(`/api/orders/${String(rest.id)}`).set('Authorization', bearer(maker))).status).toBe(200);
    await seen(rest.id, 2);
    expect(statuses(m, sell.id)).toEqual(['open', 'partiallyFilled', 'filled']);
    expect(statuses(m, rest.id)).toEqual(['open', 'cancelled']);
    await until(() => statuses(t, buy2.id).length >= 1);
    expect(statuses(t, buy1.id)).toEqual(['filled']);
    expect(statuses(t, buy2.id)).toEqual(['filled']);
    // updateId rises per order
    const ups = frames(m, 'orders').filter((o) => o.id === sell.id).map((o) => o.updateId as number);
    expect([...ups].sort((a, b) => a - b)).toEqual(ups);
    expect(new Set(ups).size).toBe(ups.length);

    // each fill from both sides: the maker's fee in quote (it sold), the taker's in base
    await until(() => frames(t, 'fills').length === 2 && frames(m, 'fills').length === 2);
    const restFills = async (user: string) =>
      ((await get(user, '/api/trades/BTC_USDT/user').query({ limit: 10 })).body as Row[]).reverse();
    for (const [c, user, liquidity] of [[m, maker, 'maker'], [t, taker, 'taker']] as const) {
      const mine = await restFills(user);
      expect(frames(c, 'fills')).toEqual(
        mine.map((f) => ({
          tradeId: f.id, orderId: f.orderId, kind: 'spot', currencyPairCode: 'BTC_USDT', side: f.side, price: f.price,
          amount: f.amount, fee: f.fee, feeCurrency: f.feeCurrencyCode, liquidity, timestamp: f.timestamp,
        })),
      );
    }
    expect(frames(m, 'fills').map((f) => f.feeCurrency)).toEqual(['USDT', 'USDT']);
    expect(frames(t, 'fills').map((f) => f.feeCurrency)).toEqual(['BTC', 'BTC']);

    // the balances end where REST says they are, every step with its reason
    const last = (c: WsClient, code: string) => frames(c, 'balances').filter((b) => b.currencyCode === code).pop();
    for (const [c, user] of [[m, maker], [t, taker]] as const) {
      const wallet = (await get(user, '/api/wallet/balances')).body as Row[];
      await until(() => wallet.every((w) => last(c, w.currencyCode as string)?.available === w.available));
      for (const w of wallet) expect(last(c, w.currencyCode as string)).toMatchObject({ account: 'wallet', ...w });
    }
    expect(frames(m, 'balances').map((b) => b.reason)).toEqual(expect.arrayContaining(['order', 'trade']));
    expect(frames(t, 'balances').every((b) => b.reason === 'trade' || b.reason === 'order')).toBe(true);
    expectNoGap(m);
    expectNoGap(t);
  });
});

describe('private stream: every state of an order changed many times in one engine call', () => {
  /** One placeSpotOrders call for all of `orders` (what the group commit sends from a busy market). */
  async function placeBatch(orders: PlaceSpotInput[]): Promise<string[]> {
    const replies = await ctx.scripts.run<string[][]>('placeSpotOrders', ...ctx.spot.engine.placeArgs(orders));
    for (const r of replies) expect(r[0]).toBe('OK');
    return replies.map((r) => r[1]);
  }

  it('a maker filled by five takers in one batch: open, each partial fill, filled, with updateIds 1, 2, …; the last equals REST', async () => {
    const maker = await onMarketShard('rapidm');
    const taker = await onMarketShard('rapidt');
    await deposit(maker, 'BTC', 1);
    await deposit(taker, 'USDT', 10_000);
    const m = await signedIn(maker, ['orders']);
    const t = await signedIn(taker, ['orders']);
    const pair = (await ctx.markets.store.getPair('spot', 'BTC_USDT'))!;
    const lots = (a: number) => Math.round(a * 10 ** pair.digitsAmount);
    const now = Date.now();
    const order = (userId: string, side: 'buy' | 'sell', amount: number, i: number): PlaceSpotInput => ({
      userId, pair, side, type: 'limit', priceTicks: String(100 * 10 ** pair.digitsPrice), amountLots: String(lots(amount)),
      postOnly: false, stp: 'NONE', clientOrderId: null, timestamp: now + i,
    });
    // a price no other test's book reaches: the takers meet this maker only
    const takes = [0.1, 0.05, 0.2, 0.1, 0.05];
    const total = takes.reduce((a, b) => a + lots(b), 0);
    const [sellId, ...buyIds] = await placeBatch([
      order(maker, 'sell', total / 10 ** pair.digitsAmount, 0),
      ...takes.map((a, i) => order(taker, 'buy', a, i + 1)),
    ]);
    const of = (c: WsClient, id: string) => frames(c, 'orders').filter((o) => String(o.id) === id);
    await until(() => of(m, sellId).length >= takes.length + 1 && buyIds.every((id) => of(t, id).length >= 1));

    // what the maker went through, from the fills as the trade history has them
    let cum = 0;
    const expected = [{ status: 'open', filled: 0 }, ...takes.map((a) => {
      cum += lots(a);
      return { status: cum === total ? 'filled' : 'partiallyFilled', filled: fromMinor(String(cum), pair.digitsAmount) };
    })];
    expect(of(m, sellId).map((o) => ({ status: o.status, filled: o.filled }))).toEqual(expected);
    expect(of(m, sellId).map((o) => o.updateId)).toEqual(expected.map((_e, i) => i + 1));
    const fills = ((await get(maker, '/api/trades/BTC_USDT/user').query({ limit: 10 })).body as Row[]).reverse();
    expect(fills.map((f) => f.amount)).toEqual(takes);
    // the last state is the one REST reads; every taker's one state too
    const restOrder = async (user: string, id: string) => (await get(user, `/api/orders/${id}`)).body as Row;
    expect(of(m, sellId).pop()).toEqual({ ...(await restOrder(maker, sellId)), kind: 'spot', updateId: takes.length + 1 });
    for (const id of buyIds) {
      expect(of(t, id)).toEqual([{ ...(await restOrder(taker, id)), kind: 'spot', updateId: 1 }]);
    }
    expectNoGap(m);
    expectNoGap(t);
  });

  it('placed, partly filled and cancelled within one batch and the call after it: each state once, in order', async () => {
    const maker = await onMarketShard('quickm');
    const taker = await onMarketShard('quickt');
    await deposit(maker, 'BTC', 1);
    await deposit(taker, 'USDT', 10_000);
    const m = await signedIn(maker, ['orders']);
    const pair = (await ctx.markets.store.getPair('spot', 'BTC_USDT'))!;
    const now = Date.now();
    const base = { pair, type: 'limit' as const, priceTicks: String(101 * 10 ** pair.digitsPrice), postOnly: false, stp: 'NONE' as const, clientOrderId: null };
    const [sellId] = await placeBatch([
      { ...base, userId: maker, side: 'sell', amountLots: String(3 * 10 ** (pair.digitsAmount - 1)), timestamp: now },
      { ...base, userId: taker, side: 'buy', amountLots: String(10 ** (pair.digitsAmount - 1)), timestamp: now + 1 },
    ]);
    // the cancel right behind, before the gateway has seen the placement
    expect((await request(app).delete(`/api/orders/${sellId}`).set('Authorization', bearer(maker))).status).toBe(200);
    const of = () => frames(m, 'orders').filter((o) => String(o.id) === sellId);
    await until(() => of().length >= 3);
    await new Promise((r) => setTimeout(r, 200));
    expect(of().map((o) => [o.status, o.updateId])).toEqual([['open', 1], ['partiallyFilled', 2], ['cancelled', 3]]);
    expect(of().pop()).toEqual({ ...((await get(maker, `/api/orders/${sellId}`)).body as Row), kind: 'spot', updateId: 3 });
    expectNoGap(m);
  });
});

describe('private stream: exact balances (each command\'s wallet from its own events)', () => {
  const wallet = async (user: string) => (await get(user, '/api/wallet/balances')).body as Row[];
  const walletFrames = (c: WsClient) => frames(c, 'balances').filter((b) => b.account === 'wallet');

  /**
   * Holds `user`'s chain of work in the gateway until `release`: its `orders` snapshot waits, and
   * every entry after it waits behind it, so the frames of every change are built after all of
   * them were made. A frame computed from a read at that time would show the last state.
   */
  function holdChain(user: string): { release(): void; restore(): void } {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const snapshot = UserStateReader.prototype.snapshot;
    const spy = jest.spyOn(UserStateReader.prototype, 'snapshot').mockImplementation(async function (
      this: UserStateReader,
      u: string,
      channel: Parameters<typeof snapshot>[1],
    ) {
      if (u === user && channel === 'orders') await gate;
      return snapshot.call(this, u, channel);
    });
    return { release, restore: () => spy.mockRestore() };
  }

  it('every change of a resting, partially filled, filled and cancelled order: a frame equal to REST read at that point, built after all of them', async () => {
    const pair = (await ctx.markets.store.getPair('spot', 'BTC_USDT'))!;
    const market = shardOfPair(pair);
    // the cluster run (ENGINE_SHARDS=3): also a maker at home elsewhere, whose wallet is its home, its escrow here and what travels between
    const homes = ctx.shards.count > 1 ? [market, (market + 1) % ctx.shards.count] : [market];
    for (const home of homes) {
      const maker = await userWithHome(ctx, home, fresh('exactm'));
      const taker = await onMarketShard('exactt');
      await deposit(maker, 'BTC', 1);
      await deposit(maker, 'USDT', 5);
      await deposit(taker, 'USDT', 1_000);
      const m = await signedIn(maker, ['balances']);
      const held = holdChain(maker);
      try {
        m.send({ op: 'subscribe', channel: 'orders' });
        await m.waitFor((x) => x.op === 'subscribed' && x.channel === 'orders');
        // REST after each step, the one before first; a price no other test here trades at
        const steps: { reason: string; rows: Row[] }[] = [{ reason: '', rows: await wallet(maker) }];
        const step = async (reason: string, act: () => Promise<unknown>) => {
          await act();
          steps.push({ reason, rows: await wallet(maker) });
        };
        await step('order', () => spotOrder(maker, 'sell', 104, 0.5)); // resting
        await step('trade', () => spotOrder(taker, 'buy', 104, 0.2)); // partially filled
        await step('trade', () => spotOrder(taker, 'buy', 104, 0.3)); // filled
        let resting: Row = {};
        await step('order', async () => (resting = await spotOrder(maker, 'sell', 160, 0.1)));
        await step('order', async () => {
          const r = await request(app).delete(`/api/orders/${String(resting.id)}`).set('Authorization', bearer(maker));
          expect(r.status).toBe(200);
        });
        // what each step changed, currency by currency, as REST read it then
        const expected = new Map<string, Row[]>();
        for (let i = 1; i < steps.length; i++) {
          for (const row of steps[i].rows) {
            const before = steps[i - 1].rows.find((r) => r.currencyCode === row.currencyCode);
            if (before && before.available === row.available && before.reserved === row.reserved) continue;
            const list = expected.get(row.currencyCode as string) ?? [];
            list.push({ account: 'wallet', ...row, reason: steps[i].reason });
            expected.set(row.currencyCode as string, list);
          }
        }
        expect([...expected.keys()].sort()).toEqual(['BTC', 'USDT']);
        expect(expected.get('BTC')).toHaveLength(5);
        expect(walletFrames(m)).toEqual([]);
        held.release();
        const count = [...expected.values()].reduce((a, l) => a + l.length, 0);
        await until(() => walletFrames(m).length >= count);
        await new Promise((r) => setTimeout(r, 200));
        for (const [code, rows] of expected) expect(walletFrames(m).filter((b) => b.currencyCode === code)).toEqual(rows);
        expect(walletFrames(m)).toHaveLength(count);
        expectNoGap(m);
      } finally {
        held.release();
        held.restore();
      }
    }
  });

  it('snapshot and frames never lose or repeat a change under concurrent trading, and no user sees another\'s', async () => {
    const a = await onMarketShard('conca');
    const b = await onMarketShard('concb');
    const pair = (await ctx.markets.store.getPair('spot', 'BTC_USDT'))!;
    const k = ctx.shards.keysOf(pair);
    // the sets of balances differ, so a frame of the other user could not pass for one's own
    await deposit(a, 'BTC', 50);
    await deposit(a, 'USDT', 300_000);
    await deposit(b, 'BTC', 70);
    await deposit(b, 'USDT', 200_000);
    const fromId = ((await ctx.redis.xrevrange(k.events('spot', 'BTC_USDT'), '+', '-', 'COUNT', 1))[0]?.[0]) ?? '0';
    const start = { [a]: await wallet(a), [b]: await wallet(b) };
    // both trade with each other at once while connections of both subscribe along the way
    const conns: { user: string; c: WsClient }[] = [];
    const trading = (async () => {
      for (let i = 0; i < 60; i++) {
        const price = 106 + (i % 5);
        await Promise.all([
          spotOrder(a, i % 2 ? 'buy' : 'sell', price, 0.01 + (i % 3) * 0.01),
          spotOrder(b, i % 2 ? 'sell' : 'buy', price, 0.02),
          spotOrder(a, 'buy', 90 + (i % 4), 0.02),
        ]);
      }
    })();
    for (let i = 0; i < 6; i++) {
      for (const user of [a, b]) conns.push({ user, c: await signedIn(user, ['balances']) });
      await new Promise((r) => setTimeout(r, 150));
    }
    await trading;
    const end = { [a]: await wallet(a), [b]: await wallet(b) };
    const lastOf = (c: WsClient, code: string) =>
      (walletFrames(c).filter((f) => f.currencyCode === code).pop() as Row | undefined) ?? snapshotOf(c, 'balances').find((r) => r.currencyCode === code);
    for (const { user, c } of conns) {
      await until(() => end[user].every((w) => lastOf(c, w.currencyCode as string)?.available === w.available
        && lastOf(c, w.currencyCode as string)?.reserved === w.reserved), 30_000);
    }

    // every state of each user's wallet, in the engine's order, from the market stream's balance events
    const entries = (await ctx.redis.xrange(k.events('spot', 'BTC_USDT'), `(${fromId}`, '+')).map(([id, f]) => parseEntry(id, f));
    const digits: Record<string, number> = {};
    for (const code of ['BTC', 'USDT']) digits[code] = (await ctx.markets.store.getCurrency(code))!.decimals;
    const states = (user: string, code: string): Row[] => {
      const first = start[user].find((r) => r.currencyCode === code) as Row;
      const out: Row[] = [{ available: first.available, reserved: first.reserved }];
      for (const e of entries) {
        for (const ev of e.events) {
          if (ev.e !== 'bal' || ev.u !== user || ev.c !== code) continue;
          const row = { available: fromMinor(ev.a, digits[code]), reserved: fromMinor(ev.rs, digits[code]) };
          const prev = out[out.length - 1];
          if (prev.available !== row.available || prev.reserved !== row.reserved) out.push(row);
        }
      }
      return out;
    };
    for (const { user, c } of conns) {
      for (const code of ['BTC', 'USDT']) {
        const all = states(user, code);
        // the last state is REST's
        expect(all[all.length - 1]).toEqual({ available: end[user].find((r) => r.currencyCode === code)!.available, reserved: end[user].find((r) => r.currencyCode === code)!.reserved });
        const snap = snapshotOf(c, 'balances').find((r) => r.currencyCode === code) as Row;
        const after = walletFrames(c).filter((f) => f.currencyCode === code).map((f) => ({ available: f.available, reserved: f.reserved }));
        // the snapshot is one of the states, and the frames are every state after it, once each
        const at = all.findIndex((s, i) => s.available === snap.available && s.reserved === snap.reserved
          && JSON.stringify(all.slice(i + 1)) === JSON.stringify(after));
        expect(at).toBeGreaterThanOrEqual(0);
      }
      expect(walletFrames(c).every((f) => f.reason === 'order' || f.reason === 'trade')).toBe(true);
      expectNoGap(c);
    }
    // some connections subscribed while the wallets were moving: they got frames after their snapshots
    expect(conns.filter(({ c }) => walletFrames(c).length > 0).length).toBeGreaterThan(0);
    // nothing of theirs left on the book for the tests after
    for (const u of [a, b]) await ctx.spot.orders.cancelAll(u, 'BTC_USDT');
  }, 120_000);
});

describe('private stream: money outside the markets and futures', () => {
  const F = '/api/futures';
  // a market no other test here trades: its mark follows the index set below alone
  const PAIR = 'ETH_USDT';

  async function futuresAccount(user: string, amount: number): Promise<number> {
    const a = await post(user, `${F}/accounts`, { name: `${user}-main`, currencyCode: 'USDT', leverage: 10 });
    expect(a.status).toBe(200);
    const t = await post(user, '/api/wallet/transfer', { fromFuturesAccountId: null, toFuturesAccountId: a.body.id, currencyCode: 'USDT', amount });
    expect(t.status).toBe(200);
    return a.body.id as number;
  }

  it('deposits, transfers, futures fills, positions and funding arrive with their reasons and equal REST', async () => {
    const long = fresh('long');
    const short = fresh('short');
    const l = await signedIn(long, ['orders', 'fills', 'balances', 'positions']);
    const s = await signedIn(short, ['orders', 'fills', 'balances', 'positions']);
    await deposit(long, 'USDT', 1_000);
    await deposit(short, 'USDT', 1_000);
    const reasons = (c: WsClient) => frames(c, 'balances').map((b) => `${String(b.account)}:${String(b.reason)}`);
    await until(() => reasons(l).includes('wallet:deposit'));
    expect(frames(l, 'balances')[0]).toMatchObject({ account: 'wallet', currencyCode: 'USDT', available: 1_000, reserved: 0, reason: 'deposit' });

    const la = await futuresAccount(long, 500);
    const sa = await futuresAccount(short, 500);
    await until(() => reasons(l).includes('futures:transfer') && reasons(l).includes('wallet:transfer'));
    expect(frames(l, 'balances').find((b) => b.reason === 'transfer' && b.account === 'wallet')).toMatchObject({ available: 500 });

    await request(app).post('/api/admin/index-price').set('Authorization', bearer('admin', true)).send({ currencyPairCode: PAIR, price: 100 });
    const made = await post(long, `${F}/trade/create-order`, { isMarket: false, isLong: true, price: 100, amount: 1, currencyPairCode: PAIR, futuresAccountId: la });
    expect(made.status).toBe(200);
    const taken = await post(short, `${F}/trade/create-order`, { isMarket: true, isLong: false, amount: 1, currencyPairCode: PAIR, futuresAccountId: sa });
    expect(taken.status).toBe(200);
    await until(() => frames(l, 'positions').length > 0 && frames(s, 'positions').length > 0 && frames(l, 'fills').length > 0);
    expect(frames(l, 'fills')[0]).toMatchObject({ kind: 'futures', orderId: made.body.id, side: 'buy', liquidity: 'maker', price: 100, amount: 1, feeCurrency: 'USDT' });
    expect(frames(s, 'fills')[0]).toMatchObject({ kind: 'futures', orderId: taken.body.id, side: 'sell', liquidity: 'taker' });
    expect(frames(l, 'orders').map((o) => o.futuresOrderStatus)).toEqual([10, 50]);

    // funding: the long pays, the short receives, each sees its position and account with reason funding
    expect(await ctx.futures.risk.runFundingRound(PAIR, Date.now())).toBe(true);
    await until(() => reasons(l).includes('futures:funding') && reasons(s).includes('futures:funding'));
    const positions = async (user: string) => {
      const r = await get(user, `${F}/trade/positions`).query({ IsActive: true });
      expect(r.status).toBe(200);
      return r.body as Row[];
    };
    for (const [c, user] of [[l, long], [s, short]] as const) {
      const rest = await positions(user);
      expect(rest).toHaveLength(1);
      await until(() => frames(c, 'positions').pop()?.fundingFee === rest[0].fundingFee);
      // the record as funding left it; what moves with the mark is read at each moment
      const atMark = new Set(['unRealizedPnl', 'unRealizedPnlPercentage', 'totalPnlPercentage', 'roe']);
      const stable = Object.fromEntries(Object.entries(rest[0]).filter(([k]) => !atMark.has(k)));
      expect(frames(c, 'positions').pop()).toMatchObject(stable);
      expect(snapshotOf(await signedIn(user, ['positions']), 'positions')).toEqual(rest);
    }
    expect((await positions(long))[0].fundingFee).toBeGreaterThan(0);
    expectNoGap(l);
    expectNoGap(s);
  });

  it('a liquidation sends the position closed and the account with reason liquidation', async () => {
    const victim = fresh('victim');
    const other = fresh('other');
    await deposit(victim, 'USDT', 100);
    await deposit(other, 'USDT', 1_000);
    const va = await futuresAccount(victim, 100);
    const oa = await futuresAccount(other, 1_000);
    const v = await signedIn(victim, ['balances', 'positions']);
    const long = await post(victim, `${F}/trade/create-order`, { isMarket: false, isLong: true, price: 100, amount: 1, currencyPairCode: PAIR, futuresAccountId: va });
    expect(long.status).toBe(200);
    expect((await post(other, `${F}/trade/create-order`, { isMarket: true, isLong: false, amount: 1, currencyPairCode: PAIR, futuresAccountId: oa })).status).toBe(200);
    await until(() => frames(v, 'positions').some((p) => p.id === long.body.id));
    // a mark of 89.10, below the long's liquidation price (about 90.5 at 10x)
    expect(await ctx.futures.engine.liquidate(PAIR, '8910', Date.now())).toContain(String(long.body.id));
    await until(() => frames(v, 'balances').some((b) => b.reason === 'liquidation'));
    await until(() => frames(v, 'positions').pop()?.futuresOrderStatus === 20);
    const rest = (await get(victim, `${F}/trade/orders-history`)).body as Row[];
    expect(frames(v, 'positions').pop()).toMatchObject({ id: long.body.id, futuresOrderStatus: 20, amountInPosition: 0 });
    expect(rest.find((o) => o.id === long.body.id)).toMatchObject({ futuresOrderStatus: 20, amountInPosition: 0 });
    const accounts = (await get(victim, `${F}/accounts`)).body as Row[];
    await until(() => frames(v, 'balances').filter((b) => b.account === 'futures').pop()?.balance === accounts[0].balance);
    expectNoGap(v);
  });

  it('a futures maker filled by three takers in one batch: every state of its order and position, in order; the last equals REST', async () => {
    const FPAIR = 'BTC_USDT';
    // at home on the market's shard, where their accounts are registered: the engine call below has
    // no margin top-up from elsewhere (ENGINE_SHARDS=3 on the cluster run)
    const fshard = shardOfPair((await ctx.markets.store.getPair('futures', FPAIR))!);
    const maker = await userWithHome(ctx, fshard, fresh('fmaker'));
    const taker = await userWithHome(ctx, fshard, fresh('ftaker'));
    await deposit(maker, 'USDT', 1_000);
    await deposit(taker, 'USDT', 1_000);
    const ma = await futuresAccount(maker, 900);
    const ta = await futuresAccount(taker, 900);
    const m = await signedIn(maker, ['orders', 'positions']);
    await request(app).post('/api/admin/index-price').set('Authorization', bearer('admin', true)).send({ currencyPairCode: FPAIR, price: 100 });
    const pair = (await ctx.markets.store.getPair('futures', FPAIR))!;
    const lot = 10 ** (pair.digitsAmount - 2);
    const base = { pairCode: FPAIR, isMarket: false, priceTicks: String(100 * 10 ** pair.digitsPrice), postOnly: false, stp: 'NONE' as const, clientOrderId: null };
    const takes = [1, 2, 3].map((k) => k * lot);
    const now = Date.now();
    const replies = await ctx.futures.engine.createMany([
      { ...base, userId: maker, accountId: String(ma), side: 'sell', amountLots: String(takes.reduce((a, b) => a + b, 0)), timestamp: now },
      ...takes.map((q, i) => ({ ...base, userId: taker, accountId: String(ta), side: 'buy' as const, amountLots: String(q), timestamp: now + i + 1 })),
    ]);
    const id = Number((replies[0] as string[])[1]);
    const of = (channel: string) => frames(m, channel).filter((o) => o.id === id);
    await until(() => of('orders').length >= takes.length + 1);
    let cum = 0;
    const held = takes.map((q) => fromMinor(String((cum += q)), pair.digitsAmount));
    // Created, then in position with 1, 3 and 6 hundredths: one state per taker of the batch
    expect(of('orders').map((o) => [o.futuresOrderStatus, o.amountInPosition, o.updateId])).toEqual([
      [10, 0, 1], ...held.map((a, i) => [50, a, i + 2]),
    ]);
    expect(of('positions').map((o) => o.amountInPosition)).toEqual(held);
    const rest = ((await get(maker, `${F}/trade/positions`).query({ IsActive: true })).body as Row[]).find((o) => o.id === id)!;
    const atMark = new Set(['unRealizedPnl', 'unRealizedPnlPercentage', 'totalPnlPercentage', 'roe', 'markPrice', 'adlQuantile']);
    const stable = Object.fromEntries(Object.entries(rest).filter(([k]) => !atMark.has(k)));
    expect(of('positions').pop()).toMatchObject(stable);
    expectNoGap(m);
  });

  it('copy trading: starting and finishing a copy send the follower\'s accounts with reason copy', async () => {
    const lead = fresh('lead');
    const follower = fresh('follower');
    await deposit(lead, 'USDT', 1_000);
    await deposit(follower, 'USDT', 1_000);
    const master = await post(lead, '/api/copy-master', {
      name: 'm', strategyName: 's', leverage: 10, currencyCode: 'USDT', slaveIncomePercentage: 10, commissionRate: 1, amount: 500,
    });
    expect(master.status).toBe(200);
    const slave = await post(follower, '/api/copy-slave', { name: 'f', leverage: 10, currencyCode: 'USDT' });
    expect(slave.status).toBe(200);
    expect((await post(follower, '/api/wallet/transfer', { fromFuturesAccountId: null, toFuturesAccountId: slave.body.id, currencyCode: 'USDT', amount: 300 })).status).toBe(200);
    const f = await signedIn(follower, ['balances']);
    const ids = { copyMasterFuturesAccountId: master.body.id, copySlaveFuturesAccountId: slave.body.id };
    expect((await post(follower, '/api/copy-slave/startMasterCopy', { ...ids, margin: 100 })).status).toBe(200);
    const copies = () => frames(f, 'balances').filter((b) => b.reason === 'copy');
    await until(() => copies().some((b) => b.id === slave.body.id));
    const afterStart = (await get(follower, '/api/futures/accounts')).body as Row[];
    expect(copies().find((b) => b.id === slave.body.id)).toMatchObject({ account: 'futures', available: 200 });
    expect(afterStart.find((a) => a.id === slave.body.id)).toMatchObject({ available: 200 });
    const seen = copies().length;
    expect((await post(follower, '/api/copy-slave/finishMasterCopy', ids)).status).toBe(200);
    await until(() => copies().length > seen && copies().some((b) => b.id === slave.body.id && b.available === 300), 20_000);
    expectNoGap(f);
  });
});

describe('private stream isolation and restarts', () => {
  /** Everything `user` owns, as REST reads it: what any frame of theirs may name. */
  async function owned(user: string) {
    const orders = ((await get(user, '/api/orders').query({ pageSize: 500 })).body.items as Row[]).map((o) => o.id);
    const wallet = ((await get(user, '/api/wallet/balances')).body as Row[]).map((b) => b.currencyCode);
    return { orders: new Set(orders), wallet: new Set(wallet) };
  }

  function expectOnlyOwn(c: WsClient, own: Awaited<ReturnType<typeof owned>>) {
    for (const o of frames(c, 'orders')) expect(own.orders.has(o.id)).toBe(true);
    for (const f of frames(c, 'fills')) expect(own.orders.has(f.orderId)).toBe(true);
    for (const b of frames(c, 'balances')) expect(own.wallet.has(b.currencyCode)).toBe(true);
  }

  it('two users trading with each other see only their own frames, a bystander none', async () => {
    const a = fresh('alice');
    const b = fresh('bob');
    const by = fresh('bystander');
    for (const u of [a, b]) {
      await deposit(u, 'BTC', 100);
      await deposit(u, 'USDT', 1_000_000);
    }
    const ca = await signedIn(a, ['orders', 'fills', 'balances', 'positions']);
    const cb = await signedIn(b, ['orders', 'fills', 'balances', 'positions']);
    const cby = await signedIn(by, ['orders', 'fills', 'balances', 'positions']);
    // 300 rounds: one rests, the other takes it whole or in part, sides alternating
    for (let i = 0; i < 300; i++) {
      const [maker, taker] = i % 2 === 0 ? [a, b] : [b, a];
      const side = i % 3 === 0 ? 'buy' : 'sell';
      await spotOrder(maker, side, 100 + (i % 7), 0.02);
      await spotOrder(taker, side === 'buy' ? 'sell' : 'buy', 100 + (i % 7), i % 5 === 0 ? 0.01 : 0.02);
    }
    const [ownA, ownB] = [await owned(a), await owned(b)];
    const fillsOf = async (u: string) => (await get(u, '/api/trades/BTC_USDT/user').query({ limit: 1000 })).body as Row[];
    const [fa, fb] = [await fillsOf(a), await fillsOf(b)];
    await until(() => frames(ca, 'fills').length === fa.length && frames(cb, 'fills').length === fb.length, 30_000);
    expectOnlyOwn(ca, ownA);
    expectOnlyOwn(cb, ownB);
    // each fill arrived once, in the order the engine made them
    expect(frames(ca, 'fills').map((f) => f.tradeId)).toEqual(fa.map((f) => f.id).reverse());
    expect(cby.messages.filter((m) => m.type === 'update')).toEqual([]);
    // and the last frame of each open order is its state now
    for (const [c, u] of [[ca, a], [cb, b]] as const) {
      const rest = (await get(u, '/api/orders').query({ pageSize: 500 })).body.items as Row[];
      const last = new Map(frames(c, 'orders').map((o) => [o.id, o.status]));
      for (const o of rest) expect(last.get(o.id)).toBe(o.status);
      expectNoGap(c);
    }
  }, 120_000);

  it('two ws instances send one user the same frames: same states, same updateIds', async () => {
    const user = fresh('twice');
    await deposit(user, 'USDT', 1_000);
    const other = await startWsRole(ctx, { port: 0 });
    try {
      const [a, b] = [await signedIn(user, ['orders', 'balances']), await signedIn(user, ['orders', 'balances'], other.port)];
      const placed = await spotOrder(user, 'buy', 70, 1);
      // each state read before the next change is made, so both instances can only read that one
      await until(() => frames(a, 'orders').length === 1 && frames(b, 'orders').length === 1);
      await until(() => frames(a, 'balances').length === 1 && frames(b, 'balances').length === 1);
      expect((await request(app).delete(`/api/orders/${String(placed.id)}`).set('Authorization', bearer(user))).status).toBe(200);
      await until(() => frames(a, 'orders').length === 2 && frames(b, 'orders').length === 2);
      await until(() => frames(a, 'balances').length === frames(b, 'balances').length && frames(a, 'balances').length >= 2);
      expect(frames(b, 'orders')).toEqual(frames(a, 'orders'));
      expect(frames(b, 'balances')).toEqual(frames(a, 'balances'));
      expect(frames(a, 'orders').map((o) => o.status)).toEqual(['open', 'cancelled']);
    } finally {
      await other.close();
    }
  });

  it('a ws instance killed and restarted: clients reconnect and get snapshots equal to REST', async () => {
    const user = fresh('restart');
    await deposit(user, 'USDT', 10_000);
    await deposit(user, 'BTC', 1);
    const first = await startWsRole(ctx, { port: 0 });
    const before = await signedIn(user, ['orders', 'balances'], first.port);
    await spotOrder(user, 'buy', 80, 1);
    await until(() => frames(before, 'orders').length === 1);
    await first.close();
    await until(() => before.closed);
    // changes while no instance serves the user
    await spotOrder(user, 'sell', 300, 0.25);
    await deposit(user, 'USDT', 5);
    const second = await startWsRole(ctx, { port: 0 });
    try {
      const after = await signedIn(user, ['orders', 'balances'], second.port);
      const rest = (await get(user, '/api/orders').query({ pageSize: 500 })).body.items as Row[];
      expect(snapshotOf(after, 'orders').map(({ kind: _k, updateId: _u, ...o }) => o)).toEqual([...rest].reverse());
      const wallet = (await get(user, '/api/wallet/balances')).body as Row[];
      expect(snapshotOf(after, 'balances')).toEqual(wallet.map((b) => ({ account: 'wallet', ...b })));
      // and it goes on from there
      await spotOrder(user, 'sell', 310, 0.25);
      await until(() => frames(after, 'orders').length === 1);
      expectNoGap(after);
    } finally {
      await second.close();
    }
  });
});
