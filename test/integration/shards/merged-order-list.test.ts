import request from 'supertest';
import { shardOfPair } from '../../../src/domain/market';
import { bearer, createApp, testContext } from '../../support/harness';
import { httpHelpers } from './shard-fixture';

/**
 * GET /api/orders with ENGINE_SHARDS=3 (one Redis, and the 3-master cluster of the cluster run): a
 * user's spot orders on markets of all three shards, merged by a k-way merge of each shard's index
 * read as far as the page needs (src/spot/spot-order.service.ts listMerged). Pages are exact, and the
 * list is the one a single shard answers for the same orders placed in the same order.
 */
type World = { ctx: Awaited<ReturnType<typeof testContext>>; app: ReturnType<typeof createApp> } & ReturnType<typeof httpHelpers>;
let one: World;
let three: World;

async function world(shards: number): Promise<World> {
  const ctx = await testContext({ ENGINE_SHARDS: String(shards) });
  const app = createApp(ctx);
  return { ctx, app, ...httpHelpers(app) };
}
beforeAll(async () => {
  one = await world(1);
  three = await world(3);
});
afterAll(async () => {
  await one.ctx.cleanup();
  await three.ctx.cleanup();
});

type Row = { id: number; currencyPairCode: string; price: number; amount: number; status: string };
const list = async (w: World, user: string, query: string): Promise<{ items: Row[]; totalCount: number; totalPages: number }> => {
  const r = await request(w.app).get(`/api/orders?${query}`).set('Authorization', bearer(user));
  expect(r.status).toBe(200);
  return r.body;
};
/** What an order is apart from its id (ids differ between the two deployments). */
const shape = (o: Row) => [o.currencyPairCode, o.price, o.amount, o.status];

describe('the merged spot order list', () => {
  it('pages exactly across three shards, reads each shard only as far as the page needs, and equals the one-shard list', async () => {
    const pairs = ['BTC_USDT', 'ETH_USDT', 'BTC_USDT.TRC20'];
    const shards = await Promise.all(pairs.map(async (p) => shardOfPair((await three.ctx.markets.store.getPair('spot', p))!)));
    expect([...shards].sort()).toEqual([0, 1, 2]);
    const user = 'lister';
    for (const w of [one, three]) {
      await w.deposit(user, 'USDT', 10_000);
      await w.deposit(user, 'USDT.TRC20', 10_000);
    }
    // 21 resting buys, one market after another in an uneven pattern, every third cancelled;
    // each placed in a later millisecond than the one before, in both deployments alike
    const plan = Array.from({ length: 21 }, (_, i) => ({ pair: pairs[(i * i + i) % 3], price: 10 + i, amount: 1 + (i % 4) }));
    let last = 0;
    for (const [i, o] of plan.entries()) {
      while (Date.now() <= last) await new Promise((r) => setImmediate(r));
      last = Date.now();
      for (const w of [one, three]) {
        const placed = await w.place(user, { currencyPairCode: o.pair, side: 'buy', type: 'limit', price: o.price, amount: o.amount });
        expect(placed.status).toBe(200);
        if (i % 3 === 0) expect((await request(w.app).delete(`/api/orders/${placed.body.id}`).set('Authorization', bearer(user))).status).toBe(200);
      }
      last = Math.max(last, Date.now());
    }
    const whole1 = await list(one, user, 'pageSize=500');
    const whole3 = await list(three, user, 'pageSize=500');
    expect(whole3.totalCount).toBe(plan.length);
    expect(whole3.items.map(shape)).toEqual(whole1.items.map(shape));
    // newest first: the last order placed leads
    expect(whole3.items[0]).toMatchObject({ currencyPairCode: plan[20].pair, price: plan[20].price });

    // pages of 4: each order on exactly one page, in the whole list's order; past the end nothing
    const zrevrange = jest.spyOn(three.ctx.redis, 'zrevrange');
    const paged: Row[] = [];
    for (let page = 1; page <= 6; page++) {
      const p = await list(three, user, `pageSize=4&page=${page}`);
      expect([page, p.totalCount, p.totalPages]).toEqual([page, plan.length, 6]);
      paged.push(...p.items);
    }
    expect(paged.map((o) => o.id)).toEqual(whole3.items.map((o) => o.id));
    expect((await list(three, user, 'pageSize=4&page=7')).items).toEqual([]);
    // page p of 4 read at most the first 4p ids of each shard's index, never the whole index
    const stops = zrevrange.mock.calls.map((c) => Number(c[2]));
    zrevrange.mockRestore();
    expect(stops).toHaveLength(7 * 3);
    expect(stops.every((s) => s >= 0 && s < 7 * 4)).toBe(true);

    // filtered by status or pair: the whole list filtered, paged the same, in both deployments
    for (const query of ['status=cancelled', 'status=open', 'currencyPairCode=ETH_USDT', 'currencyPairCode=ETH_USDT&status=open']) {
      const want = whole3.items.filter((o) => query.split('&').every((q) => {
        const [k, v] = q.split('=');
        return k === 'status' ? o.status === v : o.currencyPairCode === v;
      }));
      const got = await list(three, user, `${query}&pageSize=500`);
      expect([query, got.items.map((o) => o.id)]).toEqual([query, want.map((o) => o.id)]);
      expect([query, (await list(one, user, `${query}&pageSize=500`)).items.map(shape)]).toEqual([query, want.map(shape)]);
      const second = await list(three, user, `${query}&pageSize=2&page=2`);
      expect([query, second.totalCount, second.items.map((o) => o.id)]).toEqual([query, want.length, want.slice(2, 4).map((o) => o.id)]);
    }
    expect((await list(three, user, 'currencyPairCode=NOPE_USDT')).items).toEqual([]);
  });
});
