import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { Keys } from '../../src/platform/redis/keys';
import { bearerFor, creditedUsers, depositKey, depositLoad } from '../../scripts/lib/outage/deposit-load';
import { outageReport } from '../../scripts/lib/outage/outage-report';
import { RedisUnderTest } from '../../scripts/lib/outage/redis-under-test';
import { startService, type ServiceProcess } from '../../scripts/lib/outage/service-process';
import { WsClient } from '../support/ws-client';

/**
 * Redis crashes under a stream of deposits and comes back (docs/operations.md#redis-outages, issue 11): every request sent
 * meanwhile answers 503 ENGINE_UNAVAILABLE with Retry-After (or succeeds) at once, none runs after
 * its answer, and the service (api, ws, worker) carries on by itself once Redis is back. The
 * 25-second version under load is `npm run bench:outage`.
 */
const OUTAGE_MS = 3000;
/** The acceptance bound for an answer while Redis is away; fail-fast answers come in milliseconds. */
const ANSWER_WITHIN_MS = 2000;

jest.setTimeout(180_000);

let redis: RedisUnderTest;
let service: ServiceProcess;
const secret = randomBytes(32).toString('hex');
const prefix = `out${randomBytes(3).toString('hex')}`;

beforeAll(async () => {
  redis = await RedisUnderTest.start();
  service = await startService({
    ...process.env,
    REDIS_URL: redis.url,
    JWT_SECRET: secret,
    KEY_PREFIX: prefix,
    LOG_LEVEL: 'info',
  });
});
afterAll(async () => {
  await service?.stop();
  await redis?.stop();
});

async function until(what: string, pred: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await pred())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('Redis crashes and comes back while deposits keep coming', () => {
  it('answers 503 at once meanwhile, runs nothing after its answer, and recovers by itself', async () => {
    const api = `http://127.0.0.1:${service.apiPort}`;
    const ready = async () => (await fetch(`${api}/ready`)).status;
    const load = depositLoad({ apiUrl: api, secret, run: 'dep', concurrency: 4, paceMs: 20, clientLimitMs: 10_000, amount: 7 });
    await until('deposits before the outage', () => load.samples.filter((s) => s.status === 200).length >= 20);

    const down = Date.now();
    await redis.interrupt('kill');
    await new Promise((r) => setTimeout(r, OUTAGE_MS / 2));
    const readyWhileDown = await ready();
    await new Promise((r) => setTimeout(r, OUTAGE_MS / 2));
    await redis.resume('kill');
    const up = Date.now();
    await until('deposits after the outage', () => load.samples.filter((s) => s.start >= up && s.status === 200).length >= 20);
    const samples = await load.stop();

    const credited = await creditedUsers(api, secret, samples.map((s) => s.user));
    const report = outageReport(samples, credited, { down, up }, ANSWER_WITHIN_MS);
    expect(report.inWindow503).toBeGreaterThan(10); // the outage was seen
    expect(report.unexpected).toEqual([]); // 200, or 503 ENGINE_UNAVAILABLE with Retry-After
    expect(report.slowInWindow).toBe(0);
    expect(report.lostWrites).toBe(0);
    expect(report.executedAfterAnswer).toBe(0);
    expect(report.okAfterRecovery).toBeGreaterThanOrEqual(20);
    expect(report.failuresOutside).toBe(0);
    expect([readyWhileDown, await ready()]).toEqual([503, 200]);
    expect(service.alive()).toBe(true);
  });

  it('keyed deposits answered 503 while Redis stalled, retried with their keys afterwards, credit each user exactly once', async () => {
    // a stall (SIGSTOP): the server keeps what was sent and runs it when it wakes, past its deadline
    const api = `http://127.0.0.1:${service.apiPort}`;
    const amount = 3;
    const load = depositLoad({ apiUrl: api, secret, run: 'keyed', concurrency: 4, paceMs: 20, clientLimitMs: 10_000, amount, keyed: true });
    await until('keyed deposits before the outage', () => load.samples.filter((s) => s.status === 200).length >= 10);
    await redis.interrupt('stop');
    await new Promise((r) => setTimeout(r, OUTAGE_MS));
    await redis.resume('stop');
    const up = Date.now();
    await until('keyed deposits after the outage', () => load.samples.filter((s) => s.start >= up && s.status === 200).length >= 10);
    const samples = await load.stop();
    const unanswered = samples.filter((s) => s.status !== 200);
    expect(unanswered.length).toBeGreaterThan(5); // the outage was seen

    // every deposit not answered 200 is retried with its key until it is (409 while a lease lapses)
    const admin = bearerFor(secret, 'outage-admin', true);
    const retried: Record<string, number> = {};
    for (const s of unanswered) {
      for (let tries = 0; ; tries++) {
        const res = await fetch(`${api}/api/admin/deposits`, {
          method: 'POST',
          headers: { Authorization: admin, 'Content-Type': 'application/json', 'Idempotency-Key': depositKey(s.user) },
          body: JSON.stringify({ userId: s.user, currencyCode: 'USDT', amount }),
        });
        retried[res.status] = (retried[res.status] ?? 0) + 1;
        if (res.status === 200) break;
        expect([409, 503]).toContain(res.status);
        if (tries > 40) throw new Error(`the deposit of ${s.user} never got through: ${res.status}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    }
    const balances = await Promise.all(
      samples.map(async (s) => {
        const res = await fetch(`${api}/api/wallet/balances`, { headers: { Authorization: bearerFor(secret, s.user) } });
        const rows = (await res.json()) as { currencyCode: string; available: number }[];
        return rows.find((b) => b.currencyCode === 'USDT')?.available ?? 0;
      }),
    );
    const wrong = samples.map((s, i) => [s.user, balances[i]] as const).filter(([, usdt]) => usdt !== amount);
    expect(wrong).toEqual([]);
    expect(retried[200]).toBe(unanswered.length);
  });

  it('the ws gateway and the worker role read the market streams again after the outage', async () => {
    const api = `http://127.0.0.1:${service.apiPort}`;
    const ws = await WsClient.connect(service.wsPort);
    try {
      ws.send({ op: 'subscribe', channel: 'orderbook', market: 'BTC_USDT', kind: 'spot' });
      await ws.waitFor((m) => m.channel === 'orderbook');
      const admin = bearerFor(secret, 'outage-admin', true);
      const deposit = await fetch(`${api}/api/admin/deposits`, {
        method: 'POST',
        headers: { Authorization: admin, 'Content-Type': 'application/json' },
        body: JSON.stringify({ userId: 'maker', currencyCode: 'USDT', amount: 1000 }),
      });
      expect(deposit.status).toBe(200);
      const order = await fetch(`${api}/api/orders`, {
        method: 'POST',
        headers: { Authorization: bearerFor(secret, 'maker'), 'Content-Type': 'application/json' },
        body: JSON.stringify({ currencyPairCode: 'BTC_USDT', side: 'buy', type: 'limit', price: 123, amount: 1 }),
      });
      expect(order.status).toBe(200);
      // the gateway's tail publishes the new level
      await ws.waitFor((m) => m.channel === 'orderbook' && JSON.stringify(m.bids ?? []).includes('123'));
      // and the dispatcher (worker role) takes the entry off the market stream
      const check = new Redis(redis.url);
      try {
        const stream = new Keys(prefix).events('spot', 'BTC_USDT');
        const [[lastId]] = (await check.xrevrange(stream, '+', '-', 'COUNT', 1)) as [string, string[]][];
        await until('the dispatcher to read the new entry', async () => {
          const groups = (await check.xinfo('GROUPS', stream)) as unknown[][];
          const dispatch = groups.map((g) => Object.fromEntries(chunk(g))).find((g) => g.name === 'dispatch');
          return dispatch?.['last-delivered-id'] === lastId && dispatch?.pending === 0;
        });
      } finally {
        check.disconnect();
      }
      expect(service.alive()).toBe(true);
    } finally {
      ws.close();
    }
  });
});

function chunk(flat: unknown[]): [unknown, unknown][] {
  const out: [unknown, unknown][] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([flat[i], flat[i + 1]]);
  return out;
}
