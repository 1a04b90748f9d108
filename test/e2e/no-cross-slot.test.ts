import { Writable } from 'node:stream';
import pino from 'pino';
import { startRole, type StartedRole } from '../../src/transport/roles';
import { testContext } from '../support/harness';
import { fundTraders, randomTrading, rng } from '../support/random-trading';
import { WsClient } from '../support/ws-client';

/**
 * Every role at once (api, ws, worker) with the log kept: trading on several markets, their
 * candles, books and deals followed over the websocket. On the cluster run (REDIS_CLUSTER=1,
 * ENGINE_SHARDS=3) any command naming keys of two slots shows as CROSSSLOT in the log (a reader's
 * retry, a job's failure, a request's 500), and this test fails on it. On one Redis it proves the
 * same path end to end.
 */
const lines: string[] = [];
const sink = new Writable({
  write(chunk, _enc, done) {
    lines.push(...String(chunk).split('\n').filter(Boolean));
    done();
  },
});

type Ctx = Awaited<ReturnType<typeof testContext>>;
let ctx: Ctx;
let roles: StartedRole[] = [];
const SPOT = ['BTC_USDT', 'ETH_USDT', 'BTC_USDT.TRC20'];

beforeAll(async () => {
  ctx = await testContext({ WS_PORT: '0', PORT: '0' }, pino({ level: 'info' }, sink));
  for (const role of ['worker', 'ws', 'api'] as const) roles.push(await startRole(role, ctx));
});
afterAll(async () => {
  for (const r of roles.reverse()) await r.close();
  roles = [];
  await ctx.cleanup();
});

it('trades, candles, books and deals on every market without a cross-slot command', async () => {
  const port = Number(new URL(roles.find((r) => r.role === 'ws')!.address.replace('ws:', 'http:')).port);
  const c = await WsClient.connect(port);
  try {
    for (const market of SPOT) {
      for (const channel of ['orderbook', 'deals']) c.send({ op: 'subscribe', channel, market, kind: 'spot' });
      c.send({ op: 'subscribe', channel: 'candles', market, kind: 'spot', period: 60 });
    }
    for (const market of ['BTC_USDT', 'ETH_USDT']) c.send({ op: 'subscribe', channel: 'candles', market, kind: 'futures', period: 60 });
    await c.waitFor(() => c.messages.filter((m) => m.op === 'subscribed').length === SPOT.length * 3 + 2);
    const random = rng(20261128);
    for (const [base, quote] of [['BTC', 'USDT'], ['ETH', 'USDT'], ['BTC', 'USDT.TRC20']]) await fundTraders(ctx, base, quote);
    for (const market of SPOT) await randomTrading(ctx, market, 60, random);
    // the worker folds the trades into candles, the gateway reads each shard's candle updates
    const flowed = await Promise.all(
      SPOT.flatMap((market) =>
        ['candles', 'deals'].map((channel) => c.waitFor((m) => !m.op && m.channel === channel && m.market === market, 15_000)),
      ),
    ).then(
      () => 'every market',
      (err: Error) => err.message,
    );
    // a reader that failed retries after a pause: give one round of retries the time to log
    await new Promise((r) => setTimeout(r, 1500));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.filter((l) => /CROSSSLOT|cross.?slot/i.test(l))).toEqual([]);
    expect(flowed).toBe('every market');
  } finally {
    c.close();
  }
});
