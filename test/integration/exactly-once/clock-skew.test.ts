import { AppError } from '../../../src/domain/errors';
import { whenReady } from '../../../src/platform/redis/connection';
import type { AppContext } from '../../../src/transport/context';
import { ProxiedRedis, proxiedContexts } from '../../support/proxied-redis';
import { moneyHeld } from '../../support/money';

/**
 * Issue 24 finding 3 (docs/architecture.md, Clocks): the API process's clock 2 s behind and 2 s
 * ahead of the Redis (an injected clock: Date.now of this process shifted). Every money-moving call
 * succeeds, and a command that stalls on its way past the service's answer (held in the network
 * while the service gives up and answers 503) is still refused when it reaches Redis. Before, the
 * deadline was the API's wall clock plus a budget, checked against Redis's TIME: behind, every call
 * was refused; ahead, the late command ran after its 503.
 */
jest.setTimeout(60_000);

/**
 * How long the command stalls: past the service's 503 (the 400 ms command timeout, then 400 ms of
 * asking), short of the deadline the old code set 2 s ahead (2.4 s), where it ran.
 */
const HOLD_MS = 1500;
/** Redis unreachable meanwhile, so the service cannot fence the attempt: only the deadline can stop it. */
const DOWN_MS = 1000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each([
  ['2 s behind', -2000],
  ['2 s ahead of', 2000],
])('the API clock %s Redis', (_name, skewMs) => {
  let proxy: ProxiedRedis;
  let ctx: AppContext & { cleanup(): Promise<void> };
  let direct: AppContext & { cleanup(): Promise<void> };
  let deposited = 0;

  beforeAll(async () => {
    const realNow = Date.now.bind(Date);
    jest.spyOn(Date, 'now').mockImplementation(() => realNow() + skewMs);
    proxy = await ProxiedRedis.start();
    // the same data seen without the proxy, for the checks
    ({ faulty: ctx, direct } = await proxiedContexts(proxy, { REDIS_COMMAND_TIMEOUT_MS: '400' }));
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await ctx.close();
    await direct.cleanup();
    await proxy.stop();
  });

  const usdt = async (user: string) => ({
    wallet: (await direct.wallets.balances(user)).find((b) => b.currencyCode === 'USDT')?.available ?? 0,
    reserved: (await direct.wallets.balances(user)).find((b) => b.currencyCode === 'USDT')?.reserved ?? 0,
    account: (await direct.futures.accounts.list(user))[0]?.balance ?? 0,
  });
  const conserved = async () =>
    expect(await moneyHeld(direct.redis, direct.shards.all(), 'USDT')).toBe(BigInt(deposited) * 100_000_000n);

  it("reads Redis's clock, not its own: a lone server by TIME, a cluster's shard through readClock", async () => {
    const [seconds] = (await direct.redis.time()).map(Number);
    const viaShard = ((await ctx.scripts.run<string[]>('readClock', [ctx.keys.operation('clock')], [])) as string[]).map(Number);
    expect(Math.abs(viaShard[0] - seconds)).toBeLessThanOrEqual(1);
    const mine = ctx.scripts.clock.now(ctx.keys.operation('any')) ?? (await ctx.scripts.clock.learn(ctx.keys.operation('any')));
    expect(Math.abs(mine - seconds * 1000)).toBeLessThan(1500);
    expect(Math.abs(mine - Date.now())).toBeGreaterThan(1000); // this process's clock is the skewed one
  });

  it('every money-moving call succeeds', async () => {
    const user = `sk${Math.random().toString(36).slice(2, 8)}`;
    await ctx.wallets.deposit(user, 'USDT', 1000);
    deposited += 1000;
    const acct = await ctx.futures.accounts.create(user, { name: 'main', currencyCode: 'USDT', leverage: 10 });
    await ctx.futures.accounts.transfer(user, {
      fromFuturesAccountId: null, toFuturesAccountId: Number(acct.id), currencyCode: 'USDT', amount: 300,
    });
    const spot = await ctx.spot.orders.place(user, { currencyPairCode: 'BTC_USDT', side: 'buy', type: 'limit', price: 100, amount: 1 });
    expect(spot.order.status).toBe('open');
    const futures = await ctx.futures.orders.create(user, {
      isMarket: false, isLong: true, price: 100, amount: 1, currencyPairCode: 'BTC_USDT', futuresAccountId: Number(acct.id),
    });
    expect(futures.id).toBeGreaterThan(0);
    expect((await ctx.spot.orders.cancel(user, String(spot.order.id))).status).toBe('cancelled');
    expect(await usdt(user)).toEqual({ wallet: 700, reserved: 0, account: 300 });
    await conserved();
  });

  it('a transfer whose command stalls past the 503 is refused when it reaches Redis', async () => {
    const user = `sl${Math.random().toString(36).slice(2, 8)}`;
    await direct.wallets.deposit(user, 'USDT', 1000);
    deposited += 1000;
    const acct = await direct.futures.accounts.create(user, { name: 'main', currencyCode: 'USDT', leverage: 10 });
    const move = { fromFuturesAccountId: null, toFuturesAccountId: Number(acct.id), currencyCode: 'USDT', amount: 100 };

    const held = proxy.arm('transferMarginOnce', { holdCommandMs: HOLD_MS }, DOWN_MS);
    const started = performance.now();
    const answer = await ctx.futures.accounts.transfer(user, move).then(
      () => 'done',
      (err: unknown) => (err instanceof AppError ? `${err.status} ${err.message}` : Promise.reject(err)),
    );
    await held;
    // the service gave up (its question was held too) and said it cannot tell, before the command moved on
    expect(answer).toMatch(/^503 .*may have been carried out/);
    expect(performance.now() - started).toBeLessThan(HOLD_MS);

    await sleep(HOLD_MS + 500 - (performance.now() - started));
    // it did reach Redis, which refused it: its deadline, on Redis's clock, had passed
    expect(Buffer.concat(proxy.orphanReplies).toString()).toContain('OPERATION_ABORTED');
    expect(await usdt(user)).toEqual({ wallet: 1000, reserved: 0, account: 0 });
    // and the connection carries on, once back (a cluster client takes up to a second more to find its nodes again)
    await whenReady(ctx.redis, 5000);
    await ctx.futures.accounts.transfer(user, move);
    expect(await usdt(user)).toEqual({ wallet: 900, reserved: 0, account: 100 });
    await conserved();
  });
});
