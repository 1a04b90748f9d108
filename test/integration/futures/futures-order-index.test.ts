import type { ChainableCommander } from 'ioredis';
import type { RedisClient } from '../../../src/platform/redis/connection';
import { FuturesOrderIndex } from '../../../src/futures/futures-order-index';
import { FuturesKeyring } from '../../../src/futures/futures-keyring';
import { futuresBed } from './helpers';
import { futuresOrderOf } from '../../../src/futures/futures-order-record';

type Bed = Awaited<ReturnType<typeof futuresBed>>;
let b: Bed;
afterEach(async () => b.ctx.cleanup());

const TRADE = '/api/futures/trade';

/** A client that remembers every key the index read touched (ZRANGE, ZUNION and the pipelined HGETALLs). */
function recording(redis: RedisClient): { client: RedisClient; touched: string[] } {
  const touched: string[] = [];
  const client = {
    zrange: (key: string, start: string, stop: string) => {
      touched.push(key);
      return redis.zrange(key, start, stop);
    },
    call: (command: string, ...args: (string | number)[]) => {
      // ZUNION numkeys key... [options]: the keys follow the count
      if (command === 'ZUNION') touched.push(...(args.slice(1, 1 + Number(args[0])) as string[]));
      return redis.call(command, ...args);
    },
    pipeline: () => {
      const p = redis.pipeline();
      return new Proxy(p, {
        get(target, prop) {
          if (prop === 'hgetall') {
            return (key: string) => {
              touched.push(key);
              return target.hgetall(key);
            };
          }
          const v = Reflect.get(target, prop) as unknown;
          return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
        },
      }) as ChainableCommander;
    },
  };
  return { client: client as unknown as RedisClient, touched };
}

/** The account's orders the slow way: every order id the counter handed out, kept when it is the user's and the account's. */
async function scanned(user: string, acct: number): Promise<{ all: string[]; open: string[] }> {
  const k = b.ctx.keys;
  const all: string[] = [];
  const open: string[] = [];
  const top = Number((await b.ctx.redis.get(k.orderIds())) ?? 0);
  for (let n = 1; n <= top; n++) {
    const id = String(n);
    const h = futuresOrderOf(await b.ctx.redis.hgetall(k.order(id)));
    if (h.role !== 'open' || h.user !== user || h.acct !== String(acct)) continue;
    all.push(id);
    if (h.status === '10' || h.status === '50') open.push(id);
  }
  return { all, open };
}

describe('futures account order index', () => {
  it('reads one account without touching another account of the same user', async () => {
    b = await futuresBed();
    const main = await b.fundedAccount('alice', 10_000);
    const other = await b.fundedAccount('alice', 10_000);
    const mine = [await b.order('alice', main, true, 90, 1), await b.order('alice', main, false, 120, 1)];
    const theirs: number[] = [];
    for (let i = 0; i < 12; i++) theirs.push(await b.order('alice', other, true, 80 - i, 0.1));

    const { client, touched } = recording(b.ctx.redis);
    const rows = await new FuturesOrderIndex(client, FuturesKeyring.of(b.ctx.keys)).accountOrders(main);
    expect(rows.map((h) => Number(h.id))).toEqual(mine);
    expect(rows.every((h) => h.acct === String(main))).toBe(true);

    const k = b.ctx.keys;
    expect(touched).toEqual([k.futuresAccountOrders(main), k.futuresAccountOpenOrders(main), ...mine.map((id) => k.order(id))]);
    for (const id of theirs) expect(touched).not.toContain(k.order(id));
    // the other account reads its own, and the slow scan agrees on both
    expect((await b.ctx.futures.accountReader.state(other))?.orders.map((o) => Number(o.h.id))).toEqual(theirs);
    expect((await scanned('alice', main)).all).toEqual(mine.map(String));
    // the user's orders are both accounts' together, by id, and nobody else's
    await b.order('bob', await b.fundedAccount('bob', 10_000), true, 85, 1);
    // the product's keyring: alice's account list is at her home, which may be another shard than the market's
    const index = new FuturesOrderIndex(b.ctx.redis, b.ctx.futures.keyring);
    expect(await index.userOrderIds('alice')).toEqual([...mine, ...theirs].sort((x, y) => x - y).map(String));
    expect((await index.userOrders('alice')).every((h) => h.user === 'alice')).toBe(true);
  });

  it('keeps the open index in step with every status move: create, fill, close, cancel, liquidation', async () => {
    b = await futuresBed();
    const alice = await b.fundedAccount('alice', 1000);
    const bob = await b.fundedAccount('bob', 1000);
    const carol = await b.fundedAccount('carol', 1000);
    const dan = await b.fundedAccount('dan', 1000);
    const owners: [string, number][] = [['alice', alice], ['bob', bob], ['carol', carol], ['dan', dan]];
    const index = new FuturesOrderIndex(b.ctx.redis, FuturesKeyring.of(b.ctx.keys));
    const ids = async (acct: number, status: 'open' | 'all') => (await index.accountOrders(acct, { status })).map((h) => Number(h.id));
    const status = async (user: string, id: number) => (await b.record(user, id)).futuresOrderStatus;
    /** Every account's two indices equal what a scan of its owner's orders finds. */
    const agree = async () => {
      for (const [user, acct] of owners) {
        const slow = await scanned(user, acct);
        expect([user, (await ids(acct, 'all')).map(String)]).toEqual([user, slow.all]);
        expect([user, (await ids(acct, 'open')).map(String)]).toEqual([user, slow.open]);
      }
    };

    // create: a resting order is Created, in both indices
    const long = await b.order('alice', alice, true, 100, 1);
    expect(await status('alice', long)).toBe(10);
    expect(await ids(alice, 'open')).toEqual([long]);
    await agree();

    // fill to position: Created -> InPosition keeps it open; the taker's position opens at once
    const short = await b.order('bob', bob, false, null, 1);
    expect([await status('alice', long), await status('bob', short)]).toEqual([50, 50]);
    expect([await ids(alice, 'open'), await ids(bob, 'open')]).toEqual([[long], [short]]);
    await agree();

    // cancel: an unfilled order closed by hand is Cancelled and leaves the open index only
    const waiting = await b.order('alice', alice, true, 90, 1);
    expect(await ids(alice, 'open')).toEqual([long, waiting]);
    expect((await b.ctx.futures.orders.close('alice', { orderId: waiting, isMarket: true })).futuresOrderStatus).toBe(30);
    expect(await ids(alice, 'open')).toEqual([long]);
    expect(await ids(alice, 'all')).toEqual([long, waiting]);
    await agree();

    // close: the position closes against carol's bid (PositionClosed); carol's bid becomes her position
    const bid = await b.order('carol', carol, true, 99, 1);
    const closed = await b.put('alice', `${TRADE}/close`, { orderId: long, isMarket: true });
    expect(closed.status).toBe(200);
    expect([await status('alice', long), await status('carol', bid)]).toEqual([20, 50]);
    expect([await ids(alice, 'open'), await ids(carol, 'open')]).toEqual([[], [bid]]);
    expect(await ids(alice, 'all')).toEqual([long, waiting]);
    await agree();

    // liquidation: bob's short is taken over when the mark crosses its liquidation price
    const ask = await b.order('dan', dan, false, 109, 1);
    expect((await b.setIndex('BTC_USDT', 110)).status).toBe(200);
    expect(await b.ctx.futures.risk.sweepLiquidations('BTC_USDT')).toEqual([String(short)]);
    expect([await status('bob', short), await status('dan', ask)]).toEqual([20, 50]);
    expect([await ids(bob, 'open'), await ids(dan, 'open')]).toEqual([[], [ask]]);
    expect(await ids(bob, 'all')).toEqual([short]);
    await agree();
  });

  it('writes one index per placed order: open ones the open index, one placed already finished the finished index', async () => {
    b = await futuresBed();
    const alice = await b.fundedAccount('alice', 1000);
    const k = b.ctx.keys;
    // every shard, and alice's account list at her home (the product's keyring)
    const index = new FuturesOrderIndex(b.ctx.redis, b.ctx.futures.keyring);
    const both = async () => [await b.ctx.redis.zrange(k.futuresAccountOrders(alice), '0', '-1'), await b.ctx.redis.zrange(k.futuresAccountOpenOrders(alice), '0', '-1')];

    const resting = await b.order('alice', alice, true, 90, 1);
    expect(await both()).toEqual([[], [String(resting)]]);
    // an IOC bid with nothing to meet ends Cancelled in its own command: never open
    const ioc = await b.order('alice', alice, true, 95, 1, { timeInForce: 'IOC' });
    expect((await b.record('alice', ioc)).futuresOrderStatus).toBe(30);
    expect(await both()).toEqual([[String(ioc)], [String(resting)]]);
    expect((await index.accountOrders(alice)).map((h) => Number(h.id))).toEqual([resting, ioc]);

    // a deployment before the split kept every order in the finished index too: read once, at its id
    await b.ctx.redis.zadd(k.futuresAccountOrders(alice), resting, String(resting));
    expect((await index.accountOrders(alice)).map((h) => Number(h.id))).toEqual([resting, ioc]);
    expect(await index.userOrderIds('alice')).toEqual([String(resting), String(ioc)]);
  });
});
