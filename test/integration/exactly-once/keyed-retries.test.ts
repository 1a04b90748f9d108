import request from 'supertest';
import type { Express } from 'express';
import type { AppContext } from '../../../src/transport/context';
import { ageKeys } from '../../support/age-keys';
import type { Fault } from '../../support/fault-proxy';
import { ProxiedRedis, proxiedContexts } from '../../support/proxied-redis';
import { bearer, createApp } from '../../support/harness';
import { moneyHeld } from '../../support/money';

/**
 * Issue 24 finding 2 (docs/architecture.md, Exactly once): a transfer's reply is lost and Redis is
 * then unreachable for 3 s, so the service answers 503 "may have been carried out". Retries with
 * the same Idempotency-Key at 1 s, at 10 s and after the old 120 s lifetime of an operation record
 * (the Redis's keys aged by 120 s, not waited for): the first retry finds out what the first
 * attempt did and answers it, the later ones replay that; the money moves once. Before, the key stayed "still running" (409) for 24 h and, once a retry got
 * through, a fresh operation id moved the money again.
 */
jest.setTimeout(90_000);

const OUTAGE_MS = 3000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a keyed request whose first outcome is unknown', () => {
  let proxy: ProxiedRedis;
  let ctx: AppContext & { cleanup(): Promise<void> };
  let direct: AppContext & { cleanup(): Promise<void> };
  let app: Express;
  /** Every USDT credited in this file: what the engine must hold in all, wherever it sits. */
  let deposited = 0n;

  beforeAll(async () => {
    proxy = await ProxiedRedis.start();
    // the same data seen without the proxy, for the checks
    ({ faulty: ctx, direct } = await proxiedContexts(proxy, { REDIS_COMMAND_TIMEOUT_MS: '400' }));
    app = createApp(ctx);
  });
  afterAll(async () => {
    await ctx.close();
    await direct.cleanup();
    await proxy.stop();
  });

  /** Every USDT the engine holds: wallets, accounts, fees, insurance, pnl pool (test/support/money.ts). */
  const usdtTotal = () => moneyHeld(direct.redis, direct.shards.all(), 'USDT');
  const minor = (usdt: number) => BigInt(usdt) * 100_000_000n; // USDT has 8 decimals in config/markets.json

  async function fundedUser(name: string) {
    const user = `${name}${Math.random().toString(36).slice(2, 8)}`;
    await direct.wallets.deposit(user, 'USDT', 1000);
    deposited += minor(1000);
    const acct = await direct.futures.accounts.create(user, { name: 'main', currencyCode: 'USDT', leverage: 10 });
    return { user, acct: Number(acct.id) };
  }

  /** A transfer of 100 from the wallet to `acct`, sent under Idempotency-Key `key`. */
  const keyedTransfer = (user: string, acct: number, key: string) => () =>
    request(app)
      .post('/api/wallet/transfer')
      .set('Authorization', bearer(user))
      .set('Idempotency-Key', key)
      .send({ fromFuturesAccountId: null, toFuturesAccountId: acct, currencyCode: 'USDT', amount: 100 });

  /** Sends `send` again, the same request, while it answers 503 ENGINE_UNAVAILABLE: at most five times, a second apart. */
  async function whileUnavailable(send: () => request.Test): Promise<request.Response> {
    for (let attempt = 1; ; attempt++) {
      const r = await send();
      if (r.status !== 503 || r.body.error?.code !== 'ENGINE_UNAVAILABLE' || attempt === 5) return r;
      await sleep(1000);
    }
  }

  const balances = async (user: string) => ({
    wallet: (await direct.wallets.balances(user)).find((b) => b.currencyCode === 'USDT')?.available,
    account: (await direct.futures.accounts.list(user))[0].balance,
  });

  it.each<[string, Fault, RegExp]>([
    ['its reply lost (it ran)', 'drop-reply', /may have been carried out/],
    ['cut mid-command (it never ran)', 'cut-mid-command', /may have been carried out|nothing was done/],
  ])('a transfer %s, then Redis away 3 s: retries at 1 s, 10 s and after 120 s move the money once', async (_name, fault, firstSays) => {
    const { user, acct } = await fundedUser('kr');
    const transfer = keyedTransfer(user, acct, `transfer-${user}`);

    const hit = proxy.arm('transferMarginOnce', fault, OUTAGE_MS);
    const first = await transfer();
    await hit;
    expect([first.status, first.body.error?.code]).toEqual([503, 'ENGINE_UNAVAILABLE']);
    expect(first.body.error.message).toMatch(firstSays);

    await sleep(OUTAGE_MS + 1000);
    // the first attempt could not release the key while Redis was away; its lease, no longer
    // renewed, has lapsed by itself: this retry finds out what the first attempt did
    const at1s = await transfer();
    expect(at1s.status).toBe(200);

    await sleep(9000);
    const at10s = await transfer();
    expect(at10s.status).toBe(200);

    await ageKeys(direct.redis, ctx.config.keyPrefix, 120_000);
    const after120s = await transfer();
    expect(after120s.status).toBe(200);
    expect(after120s.headers['idempotent-replayed']).toBe('true');
    expect(after120s.body).toEqual(at10s.body);
    expect(at1s.body).toEqual(at10s.body);
    expect(at10s.headers['idempotent-replayed']).toBe('true');

    expect(await balances(user)).toEqual({ wallet: 900, account: 100 });
    expect(await usdtTotal()).toBe(deposited);
  });

  it('ten retries at once after an unknown outcome still move the money once', async () => {
    const { user, acct } = await fundedUser('kc');
    const transfer = keyedTransfer(user, acct, `many-${user}`);
    const hit = proxy.arm('transferMarginOnce', 'drop-reply', OUTAGE_MS);
    expect((await transfer()).status).toBe(503);
    await hit;
    await sleep(OUTAGE_MS + 1000); // the lease has lapsed
    const answers = await Promise.all(Array.from({ length: 10 }, transfer));
    const statuses = answers.map((a) => a.status);
    // one of them holds the key and finds the first attempt's record; the rest see it running or replay it
    expect(statuses).toContain(200);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    expect(await balances(user)).toEqual({ wallet: 900, account: 100 });
    expect(await usdtTotal()).toBe(deposited);
  });

  it.each<[string, string, Record<string, unknown>]>([
    ['a spot order', '/api/orders', { currencyPairCode: 'BTC_USDT', side: 'buy', type: 'limit', price: 100, amount: 1 }],
    ['a futures order', '/api/futures/trade/create-order', { isMarket: false, isLong: true, price: 100, amount: 1, currencyPairCode: 'BTC_USDT' }],
  ])('%s without a clientOrderId, its reply lost and Redis away 3 s: the retry answers the one order placed', async (what, path, order) => {
    const { user, acct } = await fundedUser('ko');
    await direct.futures.accounts.transfer(user, { fromFuturesAccountId: null, toFuturesAccountId: acct, currencyCode: 'USDT', amount: 500 });
    const body = path.includes('futures') ? { ...order, futuresAccountId: acct } : order;
    const place = () =>
      request(app).post(path).set('Authorization', bearer(user)).set('Idempotency-Key', `order-${user}`).send(body);
    const hit = proxy.arm(path.includes('futures') ? 'createFuturesOrdersOnce' : 'placeSpotOrdersOnce', 'drop-reply', OUTAGE_MS);
    const first = await place();
    await hit;
    expect([first.status, first.body.error?.code]).toEqual([503, 'ENGINE_UNAVAILABLE']);
    await sleep(OUTAGE_MS + 1000);
    // as a client does after a 503 (Retry-After: 1): a cluster client may need a moment more to find its nodes again
    const retry = await whileUnavailable(place);
    expect(retry.status).toBe(200);
    const spot = await direct.spot.orders.list(user, { page: 1, pageSize: 50 });
    const futures = await direct.futures.orders.ordersHistory(user, { Page: 1, PageSize: 50 });
    const placed = what === 'a spot order' ? spot.items.map((o) => o.id) : futures.map((o) => o.id);
    // placed once, under the key's operation (a group commit's batch would have placed it again)
    expect(placed).toEqual([retry.body.id]);
    expect((await place()).body).toEqual(retry.body);
    expect(await usdtTotal()).toBe(deposited);
  });

  it('a key whose request provably did not run (fenced) runs it on the retry, once', async () => {
    const { user, acct } = await fundedUser('kf');
    const transfer = keyedTransfer(user, acct, `fenced-${user}`);
    // cut mid-command with Redis still there: the service fences the attempt and says nothing was done
    const hit = proxy.arm('transferMarginOnce', 'cut-mid-command');
    const first = await transfer();
    await hit;
    expect([first.status, first.body.error?.message]).toEqual([503, 'The engine connection failed; nothing was done. Retry']);
    expect(await balances(user)).toEqual({ wallet: 1000, account: 0 });
    // the fenced attempt's record stays (24 h) and is reopened to the retry, which runs
    const again = await transfer();
    expect(again.status).toBe(200);
    expect((await transfer()).headers['idempotent-replayed']).toBe('true');
    expect(await balances(user)).toEqual({ wallet: 900, account: 100 });
    expect(await usdtTotal()).toBe(deposited);
  });
});
