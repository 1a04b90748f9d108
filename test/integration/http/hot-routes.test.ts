import request from 'supertest';
import express, { type Express } from 'express';
import { bearer, createApp, testContext } from '../../support/harness';
import { serveHotRoutes } from '../../../src/transport/http/hot-routes';

/**
 * The order-placing routes served past Express's router (src/transport/http/hot-routes.ts) answer
 * exactly as the router does: every request below goes to an app with them and to one without,
 * over the same Redis, and status, error bodies and headers must agree (issue 27).
 */
type Ctx = Awaited<ReturnType<typeof testContext>>;
let ctx: Ctx;
let hot: Express;
let routed: Express;
/** Requests the hot app's router saw: only those the hot routes leave to it. */
let routerCalls: string[];

const admin = bearer('ops', true);

beforeAll(async () => {
  ctx = await testContext();
  hot = createApp(ctx);
  routed = createApp(ctx, { hot: false });
  const router = (hot as unknown as { router: { handle: (req: { method: string; url: string }, ...rest: unknown[]) => unknown } }).router;
  const handle = router.handle.bind(router);
  routerCalls = [];
  router.handle = (req, ...rest) => {
    routerCalls.push(`${req.method} ${req.url}`);
    return handle(req, ...rest);
  };
  for (const u of ['hot-user', 'routed-user']) {
    for (const [currencyCode, amount] of [['USDT', 1_000_000], ['BTC', 100]] as const) {
      const r = await request(routed).post('/api/admin/deposits').set('Authorization', admin).send({ userId: u, currencyCode, amount });
      expect(r.status).toBe(200);
    }
  }
});
afterAll(async () => ctx.cleanup());

/** Headers whose value depends on the moment or on the order's id, not on the code path. */
const VOLATILE = new Set(['date', 'etag', 'content-length', 'x-ratelimit-remaining', 'x-ratelimit-reset']);
const VOLATILE_FIELDS = new Set(['id', 'createTimestamp', 'updateTimestamp']);

function comparable(res: request.Response) {
  const headers = Object.fromEntries(Object.entries(res.headers).filter(([k]) => !VOLATILE.has(k)));
  const body =
    res.body && typeof res.body === 'object' && !Array.isArray(res.body)
      ? Object.fromEntries(Object.entries(res.body as Record<string, unknown>).filter(([k]) => !VOLATILE_FIELDS.has(k)))
      : res.body;
  return { status: res.status, headers, body, volatile: [...VOLATILE].filter((h) => h in res.headers).sort() };
}

type Send = (app: Express, user: string) => request.Test;

/** The same request to both apps, each under its own user (orders of one would meet those of the other). */
async function both(send: Send) {
  const before = routerCalls.length;
  const a = await send(hot, 'hot-user');
  const viaRouter = routerCalls.length > before;
  const b = await send(routed, 'routed-user');
  expect(comparable(a)).toEqual(comparable(b));
  return { res: a, viaRouter };
}

const order = { currencyPairCode: 'BTC_USDT', side: 'buy', type: 'limit', price: 100, amount: 0.5 };
const post = (path: string, body: unknown, extra: Record<string, string> = {}): Send => (app, user) => {
  const t = request(app).post(path).set('Authorization', bearer(user));
  for (const [k, v] of Object.entries(extra)) t.set(k, v);
  return typeof body === 'string' ? t.set('Content-Type', extra['Content-Type'] ?? 'application/json').send(body) : t.send(body as object);
};

describe('hot order routes answer as the router does', () => {
  it.each([
    ['a limit order that rests', post('/api/orders', order), 200],
    ['a market buy', post('/api/orders', { currencyPairCode: 'BTC_USDT', side: 'buy', type: 'market', quoteAmount: 10 }), 200],
    ['a post-only order with a clientOrderId', post('/api/orders', { ...order, postOnly: true, clientOrderId: 'c-1' }), 200],
    ['the same clientOrderId again', post('/api/orders', { ...order, postOnly: true, clientOrderId: 'c-1' }), 200],
    ['more than the balance', post('/api/orders', { ...order, amount: 1_000_000 }), 422],
    ['an unknown pair', post('/api/orders', { ...order, currencyPairCode: 'NOPE_USDT' }), 400],
    ['a missing price and an unknown field', post('/api/orders', { ...order, price: undefined, colour: 'red' }), 400],
    ['a string for a number', post('/api/orders', { ...order, amount: '1' }), 400],
    ['malformed JSON', post('/api/orders', '{"side": '), 400],
    ['a JSON string instead of an object', post('/api/orders', '"buy"'), 400],
    ['a JSON number after whitespace', post('/api/orders', ' \n 12'), 400],
    ['an empty JSON body', post('/api/orders', ''), 400],
    ['a byte-order mark before the JSON', post('/api/orders', `\ufeff${JSON.stringify(order)}`), 200],
    ['non-ASCII text in a field', post('/api/orders', { ...order, clientOrderId: 'ordre-é-😀' }), 200],
    ['a __proto__ key', post('/api/orders', `{"__proto__": {"x": 1}, "side": "buy"}`), 400],
    ['a nested constructor key', post('/api/orders', { ...order, clientOrderId: { constructor: 1 } }), 400],
    ['a form body', post('/api/orders', 'side=buy', { 'Content-Type': 'application/x-www-form-urlencoded' }), 415],
    ['JSON in latin1', post('/api/orders', JSON.stringify(order), { 'Content-Type': 'application/json; charset=latin1' }), 415],
    ['JSON with an upper-case type', post('/api/orders', JSON.stringify(order), { 'Content-Type': 'Application/JSON' }), 200],
    ['a body past 64 KB', post('/api/orders', JSON.stringify({ ...order, pad: 'x'.repeat(70_000) })), 413],
    ['an error body past the compression threshold, gzip accepted', post('/api/orders', Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`unknownField${i}`, i])), { 'Accept-Encoding': 'gzip' }), 400],
    ['a small answer with gzip accepted', post('/api/orders', order, { 'Accept-Encoding': 'gzip, br' }), 200],
    ['a futures order with a bad body', post('/api/futures/trade/create-order', { side: 'up' }), 400],
    ['a futures order without an account', post('/api/futures/trade/create-order', { contractCode: 'BTC_USDT_PERP', side: 'buy', type: 'limit', price: 100, amount: 1, leverage: 2 }), 0],
  ])('%s', async (_name, send, status) => {
    const { res } = await both(send);
    if (status) expect(res.status).toBe(status);
  });

  it.each([
    ['no Authorization header', (app: Express) => request(app).post('/api/orders').send(order)],
    ['a token signed with another secret', (app: Express) => request(app).post('/api/orders').set('Authorization', 'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl').send(order)],
    ['not a Bearer token', (app: Express) => request(app).post('/api/orders').set('Authorization', 'Basic abc').send(order)],
    ['malformed JSON without a token', (app: Express) => request(app).post('/api/orders').set('Content-Type', 'application/json').send('{')],
  ])('%s: the same refusal', async (_name, send) => {
    const { res } = await both(send);
    expect(res.status).toBeGreaterThanOrEqual(400);
  });

  it('an Idempotency-Key: the first answer, then its replay', async () => {
    const first = await both(post('/api/orders', order, { 'Idempotency-Key': 'hot-routes-1' }));
    expect(first.res.status).toBe(200);
    const again = await both(post('/api/orders', order, { 'Idempotency-Key': 'hot-routes-1' }));
    expect(again.res.headers['idempotent-replayed']).toBe('true');
    expect(again.res.body.id).toBe(first.res.body.id);
  });

  it('goes past the router only for the exact path; other spellings and methods take the router', async () => {
    expect((await both(post('/api/orders', order))).viaRouter).toBe(false);
    expect((await both(post('/api/futures/trade/create-order', { side: 'up' }))).viaRouter).toBe(false);
    expect((await both(post('/api/orders/', order))).viaRouter).toBe(true);
    expect((await both(post('/api/orders?x=1', order))).viaRouter).toBe(true);
    expect((await both((app, user) => request(app).get('/api/orders?page=x').set('Authorization', bearer(user)))).viaRouter).toBe(true);
  });

  it('counts the route in the request metrics as the router does', async () => {
    const metrics = async () => (await request(routed).get('/metrics')).text;
    const line = /http_request_duration_seconds_count\{method="POST",route="\/api\/orders",status="400"\} (\d+)/;
    const count = async () => Number(line.exec(await metrics())?.[1] ?? 0);
    const start = await count();
    await request(hot).post('/api/orders').set('Authorization', bearer('hot-user')).send({ side: 'x' });
    expect(await count()).toBe(start + 1);
  });
});

describe('serveHotRoutes refuses a route it cannot serve as the router would', () => {
  const parts = { instead: new Map(), errors: () => undefined, notFound: () => undefined };
  it('one that is not a route of the app', () => {
    const app = express();
    expect(() => serveHotRoutes(app, [{ method: 'POST', path: '/api/orders' }], parts)).toThrow(/not a route/);
  });
  it('one that an earlier route with parameters may match first', () => {
    const app = express();
    app.post('/api/:what', (_req, res) => void res.end());
    app.post('/api/orders', (_req, res) => void res.end());
    expect(() => serveHotRoutes(app, [{ method: 'POST', path: '/api/orders' }], parts)).toThrow(/shadowed by \/api\/:what/);
  });
});
