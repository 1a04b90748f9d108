import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import request from 'supertest';
import type { Express } from 'express';
import { bearer, createApp, TEST_SECRET, testContext, tokenFor } from '../support/harness';
import { WsClient } from '../support/ws-client';

/**
 * The private user stream when its ws instance is killed (SIGKILL, a process of its own) and
 * started again on the same port: the client sees the connection drop, reconnects, and the
 * snapshots it gets equal the REST reads, changes made while no instance ran included.
 */
const ROOT = resolve(__dirname, '../..');
type Ctx = Awaited<ReturnType<typeof testContext>>;
type Row = Record<string, unknown>;
let ctx: Ctx;
let app: Express;
let child: ChildProcess | undefined;
const USER = 'killed-ws-user';

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => done(port));
    });
  });
}

async function startChild(port: number): Promise<ChildProcess> {
  const c = spawn(process.execPath, ['--import', 'tsx', resolve(ROOT, 'test/support/ws-child.ts')], {
    cwd: ROOT,
    env: {
      ...process.env, REDIS_URL: ctx.config.redisUrl, KEY_PREFIX: ctx.config.keyPrefix, JWT_SECRET: TEST_SECRET,
      LOG_LEVEL: 'silent', WS_PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((ready, fail) => {
    c.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && ready());
    c.once('exit', (code) => fail(new Error(`ws child exited with ${code}`)));
  });
  return c;
}

async function signedIn(port: number): Promise<WsClient> {
  const c = await WsClient.connect(port, undefined, '/ws/user');
  c.send({ op: 'auth', token: tokenFor(USER) });
  for (const channel of ['orders', 'balances']) c.send({ op: 'subscribe', channel });
  await c.waitFor((m) => m.channel === 'balances' && m.type === 'snapshot', 20_000);
  await c.waitFor((m) => m.channel === 'orders' && m.type === 'snapshot', 20_000);
  return c;
}

const snapshot = (c: WsClient, channel: string) =>
  (c.messages.filter((m) => m.channel === channel && m.type === 'snapshot').pop()?.data ?? []) as Row[];

async function restOpenOrders(): Promise<Row[]> {
  const r = await request(app).get('/api/orders').query({ pageSize: 500 }).set('Authorization', bearer(USER));
  return (r.body.items as Row[]).filter((o) => o.status === 'open' || o.status === 'partiallyFilled').reverse();
}

async function restWallet(): Promise<Row[]> {
  const r = await request(app).get('/api/wallet/balances').set('Authorization', bearer(USER));
  return (r.body as Row[]).map((b) => ({ account: 'wallet', ...b }));
}

const place = (price: number) =>
  request(app).post('/api/orders').set('Authorization', bearer(USER)).send({ currencyPairCode: 'BTC_USDT', side: 'buy', type: 'limit', price, amount: 1 });

beforeAll(async () => {
  ctx = await testContext();
  app = createApp(ctx);
  await request(app).post('/api/admin/deposits').set('Authorization', bearer('admin', true)).send({ userId: USER, currencyCode: 'USDT', amount: 10_000 });
});

afterAll(async () => {
  child?.kill('SIGKILL');
  await ctx.cleanup();
});

describe('private stream, a ws instance killed', () => {
  it('the client reconnects to the restarted instance and its snapshots equal REST', async () => {
    const port = await freePort();
    child = await startChild(port);
    const before = await signedIn(port);
    expect((await place(60)).status).toBe(200);
    await before.waitFor((m) => m.channel === 'orders' && m.type === 'update');

    child.kill('SIGKILL');
    await new Promise((r) => child!.once('exit', r));
    await before.waitFor(() => before.closed, 10_000).catch(() => undefined);
    expect(before.closed).toBe(true);
    // changes while no instance runs
    expect((await place(61)).status).toBe(200);
    expect((await place(62)).status).toBe(200);

    child = await startChild(port);
    const after = await signedIn(port);
    expect(snapshot(after, 'orders').map(({ kind: _k, updateId: _u, ...o }) => o)).toEqual(await restOpenOrders());
    expect(snapshot(after, 'orders')).toHaveLength(3);
    expect(snapshot(after, 'balances')).toEqual(await restWallet());
    // and it goes on from there
    expect((await place(63)).status).toBe(200);
    await after.waitFor((m) => m.channel === 'orders' && m.type === 'update');
    after.close();
  }, 90_000);
});
