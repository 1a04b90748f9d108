import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { readFileSync } from 'node:fs';
import request from 'supertest';
import { shardOfId, SHARD_ID_SPAN } from '../../../src/domain/shard-ids';
import { shardTag } from '../../../src/platform/redis/shard-tags';
import { seedMarkets } from '../../../src/markets/market-seeder';
import { startRedisServer } from '../../../src/platform/redis/redis-server-process';
import { startRedisCluster } from '../../../src/platform/redis/redis-cluster-process';
import { bearer } from '../../support/harness';
import { durableRedis, type ShardRedis, expectReconciled, shardWorld, userWithHome } from './shard-fixture';

let server: ShardRedis;
beforeAll(async () => {
  server = await durableRedis();
});
afterAll(async () => server.stop());

describe('markets on engine shards (ENGINE_SHARDS=3)', () => {
  let w: Awaited<ReturnType<typeof shardWorld>>;
  beforeEach(async () => {
    w = await shardWorld(server, 3);
  });
  afterEach(async () => w.ctx.cleanup());

  it('seeds spot markets onto the shard with the fewest markets, futures where MARKETS_FILE pins them (shard 0), and copies each pair to its shard', async () => {
    const shardOf = async (kind: 'spot' | 'futures', code: string) => (await w.ctx.markets.store.getPair(kind, code))?.engineShard;
    // config/markets.json in file order: three spot pairs, then two futures pairs
    expect(await shardOf('spot', 'BTC_USDT')).toBe(0);
    expect(await shardOf('spot', 'ETH_USDT')).toBe(1);
    expect(await shardOf('spot', 'BTC_USDT.TRC20')).toBe(2);
    expect(await shardOf('futures', 'BTC_USDT')).toBe(0);
    const copy = await w.ctx.redis.hgetall(w.ctx.shards.keys(2).pair('spot', 'BTC_USDT.TRC20'));
    expect(copy).toMatchObject({ code: 'BTC_USDT.TRC20', engineShard: '2', quoteCurrencyCode: 'USDT.TRC20' });
    expect(await w.ctx.redis.get(w.ctx.shards.keys(2).orderIds())).toBe(String(2 * SHARD_ID_SPAN));
  });

  it('takes engineShard from the admin body, answers 422 past ENGINE_SHARDS and 400 for a bad value', async () => {
    const currency = await request(w.app).post('/api/admin/currencies').set('Authorization', w.admin).send({ code: 'LTC', name: 'Litecoin', decimals: 8 });
    expect(currency.status).toBe(200);
    const body = {
      kind: 'spot', baseCurrencyCode: 'LTC', quoteCurrencyCode: 'USDT', digitsPrice: 2, digitsAmount: 4,
      minBaseAmount: 0.001, minQuoteAmount: 1, makerFee: 0.001, takerFee: 0.002,
    };
    const post = (extra: Record<string, unknown>) => request(w.app).post('/api/admin/pairs').set('Authorization', w.admin).send({ ...body, ...extra });
    const past = await post({ engineShard: 3 });
    expect([past.status, past.body.error.code]).toEqual([422, 'ENGINE_SHARD_UNKNOWN']);
    const negative = await post({ engineShard: -1 });
    expect(negative.status).toBe(400);
    expect(await w.ctx.markets.store.getPair('spot', 'LTC_USDT')).toBeUndefined();
    // a futures market runs on any shard, the one asked for
    const futures = await post({ kind: 'futures', baseCurrencyCode: 'LTC', engineShard: 1, contractValue: 1, lotSize: 0.001, maxLeverage: 20, maintenanceMarginRate: 0.01 });
    expect([futures.status, futures.body.engineShard]).toEqual([200, 1]);
    expect((await w.ctx.markets.store.getPair('futures', 'LTC_USDT'))?.engineShard).toBe(1);
    expect(await w.ctx.redis.hget(w.ctx.shards.keys(1).pair('futures', 'LTC_USDT'), 'engineShard')).toBe('1');
    // shards hold 3, 2 and 1 markets: the fewest is shard 2, for either kind
    const created = await post({});
    expect([created.status, created.body.engineShard]).toEqual([200, 2]);
  });

  it('refuses a MARKETS_FILE pair whose engineShard is past ENGINE_SHARDS, creating nothing', async () => {
    const file = JSON.parse(readFileSync(resolve(__dirname, '../../../config/markets.json'), 'utf8'));
    file.currencies.push({ code: 'XRP', name: 'Ripple', decimals: 6 });
    file.pairs = [{ ...file.pairs[0], baseCurrencyCode: 'XRP', digitsAmount: 2, engineShard: 9 }];
    const path = join(mkdtempSync(join(tmpdir(), 'markets-')), 'markets.json');
    writeFileSync(path, JSON.stringify(file));
    await expect(seedMarkets(path, w.ctx.markets.service, w.ctx.log)).rejects.toMatchObject({ code: 'ENGINE_SHARD_UNKNOWN' });
    expect(await w.ctx.markets.store.getPair('spot', 'XRP_USDT')).toBeUndefined();
  });

  it("runs a market's orders on its shard: ids carry the shard, keys its tag, reads and cancels find them by id", async () => {
    const user = await userWithHome(w.ctx, 2, 'carrier');
    await w.deposit(user, 'USDT.TRC20', 1000);
    const placed = await w.place(user, { currencyPairCode: 'BTC_USDT.TRC20', side: 'buy', type: 'limit', price: 100, amount: 1 });
    expect(placed.status).toBe(200);
    expect(shardOfId(String(placed.body.id))).toBe(2);
    const k2 = w.ctx.shards.keys(2);
    expect(k2.engine).toContain(`{${shardTag(2)}}`);
    expect(await w.ctx.redis.exists(k2.order(placed.body.id))).toBe(1);
    expect(await w.ctx.redis.exists(w.ctx.shards.keys(0).order(placed.body.id))).toBe(0);
    const book = await request(w.app).get('/api/orderbook/BTC_USDT.TRC20');
    expect(book.body.bids).toEqual([{ price: 100, quantity: 1 }]);
    const read = await request(w.app).get(`/api/orders/${placed.body.id}`).set('Authorization', bearer(user));
    expect([read.status, read.body.status]).toEqual([200, 'open']);
    const cancelled = await request(w.app).delete(`/api/orders/${placed.body.id}`).set('Authorization', bearer(user));
    expect([cancelled.status, cancelled.body.status]).toEqual([200, 'cancelled']);
    expect((await w.balances(user))['USDT.TRC20']).toEqual({ currencyCode: 'USDT.TRC20', available: 1000, reserved: 0 });
    expectReconciled(await w.reconcile());
  });
});

describe('per-shard funds', () => {
  it("funds one shard's insurance fund from the operator, shows every shard's, and counts it as a deposit", async () => {
    const w = await shardWorld(server, 3);
    try {
      const post = (body: Record<string, unknown>) => request(w.app).post('/api/admin/insurance-fund').set('Authorization', w.admin).send(body);
      const funded = await post({ shard: 2, currencyCode: 'USDT', amount: 250 });
      expect([funded.status, funded.body]).toEqual([200, { shard: 2, currencyCode: 'USDT', balance: 250 }]);
      expect((await post({ shard: 3, currencyCode: 'USDT', amount: 1 })).body.error.code).toBe('ENGINE_SHARD_UNKNOWN');
      expect((await post({ shard: -1, currencyCode: 'USDT', amount: 1 })).status).toBe(400);
      expect((await post({ shard: 0, currencyCode: 'NOPE', amount: 1 })).status).toBe(400);
      const read = await request(w.app).get('/api/admin/insurance-fund').set('Authorization', w.admin);
      expect(read.body).toEqual([{
        currencyCode: 'USDT', balance: 250, positions: [],
        shards: [0, 1, 2].map((shard) => ({ shard, balance: shard === 2 ? 250 : 0, fees: 0, pnlPool: 0 })),
      }]);
      const usdt = (await w.reconcile()).find((c) => c.currencyCode === 'USDT');
      expect(usdt).toMatchObject({ holds: true, terms: { insurance: 250, deposits: 250 } });
    } finally {
      await w.ctx.cleanup();
    }
  });
});

describe('growing ENGINE_SHARDS on live data', () => {
  it('keeps existing users, orders and markets on shard 0 when ENGINE_SHARDS goes from 1 to 3, and never moves a home', async () => {
    const prefix = `grow${Date.now()}`;
    const one = await shardWorld(server, 1, { KEY_PREFIX: prefix });
    await one.deposit('veteran', 'USDT', 5000);
    await one.deposit('veteran', 'BTC', 2);
    const resting = await one.place('veteran', { currencyPairCode: 'ETH_USDT', side: 'buy', type: 'limit', price: 1000, amount: 1 });
    expect(resting.status).toBe(200);
    const before = await one.balances('veteran');
    await one.ctx.close();

    const three = await shardWorld(server, 3, { KEY_PREFIX: prefix });
    try {
      // markets keep their shard: every seeded pair was created on shard 0
      expect((await three.ctx.markets.store.getPair('spot', 'ETH_USDT'))?.engineShard).toBe(0);
      expect(await three.ctx.funds.homes.of('veteran')).toBe(0);
      expect(await three.balances('veteran')).toEqual(before);
      const read = await request(three.app).get(`/api/orders/${resting.body.id}`).set('Authorization', bearer('veteran'));
      expect([read.status, read.body.status]).toEqual([200, 'open']);
      // a new market on shard 2 is paid from the veteran's home on shard 0 through escrow
      await request(three.app).post('/api/admin/currencies').set('Authorization', three.admin).send({ code: 'SOL', name: 'Solana', decimals: 8 });
      const pair = await request(three.app).post('/api/admin/pairs').set('Authorization', three.admin).send({
        kind: 'spot', baseCurrencyCode: 'SOL', quoteCurrencyCode: 'USDT', digitsPrice: 2, digitsAmount: 2,
        minBaseAmount: 0.01, minQuoteAmount: 1, makerFee: 0.001, takerFee: 0.002, engineShard: 2,
      });
      expect(pair.status).toBe(200);
      const far = await three.place('veteran', { currencyPairCode: 'SOL_USDT', side: 'buy', type: 'limit', price: 10, amount: 5 });
      expect([far.status, shardOfId(String(far.body.id))]).toEqual([200, 2]);
      const after = await three.balances('veteran');
      expect(after.USDT).toEqual({ currencyCode: 'USDT', available: before.USDT.available - 50, reserved: before.USDT.reserved + 50 });
      const homes = new Map<string, number>();
      for (const u of ['n1', 'n2', 'n3', 'n4', 'n5', 'n6']) homes.set(u, await three.ctx.funds.homes.of(u));
      expect(new Set(homes.values()).size).toBeGreaterThan(1);
      expectReconciled(await three.reconcile());
      await three.ctx.close();

      // a later process, even with other shard counts, reads the same homes
      const again = await shardWorld(server, 3, { KEY_PREFIX: prefix });
      for (const [u, home] of homes) expect(await again.ctx.funds.homes.of(u)).toBe(home);
      await again.ctx.cleanup();
    } finally {
      await three.ctx.close().catch(() => undefined);
    }
  });
});

describe('durability check at start', () => {
  it('refuses more than one shard on cluster masters with neither a replica nor appendfsync always', async () => {
    const cluster = await startRedisCluster({ masters: 3, appendOnly: false });
    try {
      await expect(shardWorld({ url: cluster.url, cluster: true }, 3)).rejects.toThrow(/appendfsync always/);
    } finally {
      await cluster.stop();
    }
  });

  it('starts several shards on one server whatever its persistence: one AOF keeps their steps in order', async () => {
    // a server without AOF: one server keeps the steps of a transfer in order, whatever it loses
    const plain = await startRedisServer();
    try {
      const w = await shardWorld({ url: plain.url, cluster: false }, 3);
      await w.ctx.cleanup();
      expect(w.ctx.funds.relay).not.toBeNull();
    } finally {
      await plain.stop();
    }
  });
});
