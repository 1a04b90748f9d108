import request from 'supertest';
import { AppError } from '../../../src/domain/errors';
import type { AppContext } from '../../../src/transport/context';
import type { Fault } from '../../support/fault-proxy';
import { ProxiedRedis, proxiedContexts } from '../../support/proxied-redis';
import { bearer, createApp } from '../../support/harness';

/**
 * Exactly once (docs/api-contract.md#exactly-once): the engine connection goes through a proxy that loses a reply, cuts a
 * command in half or holds a reply past the command timeout. Every operation is applied once or
 * not at all, the service answers what happened, and the money adds up afterwards.
 */
describe('exactly once across lost replies', () => {
  let proxy: ProxiedRedis;
  let ctx: AppContext & { cleanup(): Promise<void> };
  let direct: AppContext & { cleanup(): Promise<void> };

  beforeAll(async () => {
    proxy = await ProxiedRedis.start();
    // the same data seen without the proxy, for the checks
    ({ faulty: ctx, direct } = await proxiedContexts(proxy, { REDIS_COMMAND_TIMEOUT_MS: '400' }));
  });
  afterAll(async () => {
    await ctx.close();
    await direct.cleanup();
    await proxy.stop();
  });

  const available = async (user: string, currency: string) =>
    (await direct.wallets.balances(user)).find((b) => b.currencyCode === currency)?.available ?? 0;
  const reserved = async (user: string, currency: string) =>
    (await direct.wallets.balances(user)).find((b) => b.currencyCode === currency)?.reserved ?? 0;

  /** Runs `op` with `fault` armed on the command carrying `marker`; resolves to its result or its error code. */
  async function faulted<T>(marker: string, fault: Fault, op: () => Promise<T>): Promise<{ value?: T; error?: string }> {
    const hit = proxy.arm(marker, fault);
    const out = await op().then(
      (value) => ({ value }),
      (err: unknown) => {
        if (err instanceof AppError) return { error: `${err.status} ${err.code}` };
        throw err;
      },
    );
    await hit;
    return out;
  }

  it.each<[string, Fault]>([
    ['a lost reply', 'drop-reply'],
    ['a reply held past the command timeout', { delayReplyMs: 1200 }],
  ])('a deposit whose reply is lost (%s) is applied once and answered as done', async (_name, fault) => {
    const user = `dep${Math.random().toString(36).slice(2, 8)}`;
    const out = await faulted('depositOnce', fault, () => ctx.wallets.deposit(user, 'USDT', 100));
    expect(out.error).toBeUndefined();
    expect(out.value?.available).toBe(100);
    expect(await available(user, 'USDT')).toBe(100);
  });

  it('a deposit cut mid-command is not applied, answers 503, and a retry applies it once', async () => {
    const user = `cut${Math.random().toString(36).slice(2, 8)}`;
    const out = await faulted('depositOnce', 'cut-mid-command', () => ctx.wallets.deposit(user, 'USDT', 100));
    expect(out.error).toBe('503 ENGINE_UNAVAILABLE');
    expect(await available(user, 'USDT')).toBe(0);
    await ctx.wallets.deposit(user, 'USDT', 100);
    expect(await available(user, 'USDT')).toBe(100);
  });

  it.each<[string, string | null, Fault]>([
    ['without a clientOrderId, reply lost', null, 'drop-reply'],
    ['with a clientOrderId, reply lost', 'c-lost', 'drop-reply'],
    ['with a clientOrderId, cut mid-command', 'c-cut', 'cut-mid-command'],
  ])('a spot order %s rests once with one reservation', async (_name, clientOrderId, fault) => {
    const user = `so${Math.random().toString(36).slice(2, 8)}`;
    await direct.wallets.deposit(user, 'USDT', 1000);
    const req = { currencyPairCode: 'BTC_USDT', side: 'buy' as const, type: 'limit' as const, price: 100, amount: 1, clientOrderId };
    const out = await faulted('placeSpotOrdersOnce', fault, () => ctx.spot.orders.place(user, req));
    if (out.error) {
      // nothing was done, so the client retries (with its clientOrderId, if it has one)
      expect(out.error).toBe('503 ENGINE_UNAVAILABLE');
      expect(await reserved(user, 'USDT')).toBe(0);
      await ctx.spot.orders.place(user, req);
    }
    const mine = await direct.spot.orders.list(user, { page: 1, pageSize: 50 });
    expect(mine.items.filter((o) => o.status === 'open')).toHaveLength(1);
    expect(await reserved(user, 'USDT')).toBe(100);
    expect((await available(user, 'USDT')) + (await reserved(user, 'USDT'))).toBe(1000);
  });

  it('a cancel whose reply is lost releases the reservation once and answers the cancelled order', async () => {
    const user = `cx${Math.random().toString(36).slice(2, 8)}`;
    await direct.wallets.deposit(user, 'USDT', 1000);
    const { order } = await direct.spot.orders.place(user, {
      currencyPairCode: 'BTC_USDT', side: 'buy', type: 'limit', price: 100, amount: 2,
    });
    const out = await faulted('cancelSpotOrderOnce', 'drop-reply', () => ctx.spot.orders.cancel(user, String(order.id)));
    expect(out.error).toBeUndefined();
    expect(out.value?.status).toBe('cancelled');
    expect(await reserved(user, 'USDT')).toBe(0);
    expect(await available(user, 'USDT')).toBe(1000);
  });

  it.each<[string, Fault]>([
    ['a lost reply', 'drop-reply'],
    ['a cut mid-command', 'cut-mid-command'],
  ])('a transfer to a futures account after %s moves the money once (or not at all, answered 503)', async (_name, fault) => {
    const user = `tr${Math.random().toString(36).slice(2, 8)}`;
    await direct.wallets.deposit(user, 'USDT', 1000);
    const acct = await direct.futures.accounts.create(user, { name: 'main', currencyCode: 'USDT', leverage: 10 });
    const move = { fromFuturesAccountId: null, toFuturesAccountId: Number(acct.id), currencyCode: 'USDT', amount: 100 };
    const out = await faulted('transferMarginOnce', fault, () => ctx.futures.accounts.transfer(user, move));
    const moved = out.error ? 0 : 100;
    if (out.error) expect(out.error).toBe('503 ENGINE_UNAVAILABLE');
    const [account] = await direct.futures.accounts.list(user);
    expect(account.balance).toBe(moved);
    expect(await available(user, 'USDT')).toBe(1000 - moved);
  });

  it.each<[string, string | null]>([
    ['without a clientOrderId', null],
    ['with a clientOrderId', 'f-lost'],
  ])('a futures order %s whose reply is lost is placed once', async (_name, clientOrderId) => {
    const user = `fo${Math.random().toString(36).slice(2, 8)}`;
    await direct.wallets.deposit(user, 'USDT', 1000);
    const acct = await direct.futures.accounts.create(user, { name: 'main', currencyCode: 'USDT', leverage: 10 });
    await direct.futures.accounts.transfer(user, {
      fromFuturesAccountId: null, toFuturesAccountId: Number(acct.id), currencyCode: 'USDT', amount: 500,
    });
    const req = {
      isMarket: false, isLong: true, price: 100, amount: 1, currencyPairCode: 'BTC_USDT',
      futuresAccountId: Number(acct.id), clientOrderId,
    };
    const out = await faulted('createFuturesOrdersOnce', 'drop-reply', () => ctx.futures.orders.create(user, req));
    expect(out.error).toBeUndefined();
    const history = await direct.futures.orders.ordersHistory(user, { Page: 1, PageSize: 50 });
    expect(history).toHaveLength(1);
    expect(history[0].id).toBe(out.value?.id);
  });

  it('Idempotency-Key over HTTP: a deposit whose reply is lost, then repeated, credits once and replays the answer', async () => {
    const app = createApp(ctx);
    const user = `ik${Math.random().toString(36).slice(2, 8)}`;
    const send = () =>
      request(app)
        .post('/api/admin/deposits')
        .set('Authorization', bearer('ops', true))
        .set('Idempotency-Key', `dep-${user}`)
        .send({ userId: user, currencyCode: 'USDT', amount: 50 });
    const hit = proxy.arm('depositOnce', 'drop-reply');
    const first = await send();
    await hit;
    expect(first.status).toBe(200);
    const again = await send();
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await available(user, 'USDT')).toBe(50);
  });
});
