import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import type { Express } from 'express';
import request from 'supertest';
import { bearer, createApp, testContext } from '../../support/harness';

/**
 * The API reference's response schemas are real: every route is called on a live app (Redis, seeded
 * markets, trades on spot and futures, a copy master and a follower) and each answer, success or
 * error, is checked against the schema /api/openapi.json gives for that route and status.
 */
type Ctx = Awaited<ReturnType<typeof testContext>>;
type Media = Record<string, { schema: unknown }>;
type Operation = { responses: Record<string, { content?: Media; $ref?: string }> };
type Document = {
  paths: Record<string, Record<string, Operation>>;
  components: { responses: Record<string, { content: Media }>; schemas: Record<string, unknown> };
};

let ctx: Ctx;
let app: Express;
let doc: Document;
const ajv = new Ajv2020({ strict: true, allErrors: true });
ajv.addFormat('date-time', (s: string) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(s));
ajv.addFormat('uri', (s: string) => URL.canParse(s));
ajv.addFormat('uuid', (s: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s));
const validators = new Map<string, ValidateFunction>();
/** `METHOD /template STATUS` of every answer checked. */
const seen = new Set<string>();

const ADMIN = 'ops';
/** The document's named schemas, registered under an id of their own. */
const SCHEMAS = 'https://api.invalid/schemas.json';
const withReachableRefs = (schema: unknown) =>
  JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', `"${SCHEMAS}#/$defs/`)) as object;

/** The operation whose path template matches `path`; the one with the fewest parameters when several do. */
function templateOf(method: string, path: string): string {
  const candidates = Object.keys(doc.paths).filter(
    (t) => doc.paths[t][method] && new RegExp(`^${t.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path),
  );
  candidates.sort((a, b) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0));
  if (!candidates.length) throw new Error(`no documented operation for ${method} ${path}`);
  return candidates[0];
}

function validatorFor(method: string, template: string, status: number, type: string): ValidateFunction {
  const key = `${method} ${template} ${status} ${type}`;
  let v = validators.get(key);
  if (!v) {
    const r = doc.paths[template][method].responses[String(status)];
    if (!r) throw new Error(`${method} ${template} answered ${status}, which the document does not list`);
    const content = r.$ref ? doc.components.responses[r.$ref.split('/').pop() as string].content : (r.content as Media);
    const schema = content[type]?.schema;
    if (!schema) throw new Error(`${key}: no schema for this media type`);
    v = ajv.compile(withReachableRefs(schema));
    validators.set(key, v);
  }
  return v;
}

async function call(method: 'get' | 'post' | 'put' | 'delete', url: string, opts: { as?: string; body?: object } = {}) {
  let req = request(app)[method](url);
  if (opts.as) req = req.set('Authorization', bearer(opts.as, opts.as === ADMIN));
  const res = await (opts.body ? req.send(opts.body) : req);
  const path = url.split('?')[0];
  const template = templateOf(method, path);
  const json = /json/.test(res.headers['content-type'] ?? '');
  const v = validatorFor(method, template, res.status, json ? 'application/json' : 'text/plain');
  if (!v(json ? res.body : res.text)) {
    throw new Error(`${method.toUpperCase()} ${url} ${res.status}: ${ajv.errorsText(v.errors)}\n${JSON.stringify(res.body).slice(0, 500)}`);
  }
  seen.add(`${method} ${template} ${res.status}`);
  return res;
}

/** A call that must succeed; its body. */
async function ok(method: 'get' | 'post' | 'put' | 'delete', url: string, opts: { as?: string; body?: object } = {}) {
  const res = await call(method, url, opts);
  if (res.status !== 200) throw new Error(`${method.toUpperCase()} ${url}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

beforeAll(async () => {
  ctx = await testContext();
  app = createApp(ctx);
  doc = (await request(app).get('/api/openapi.json')).body as Document;
  ajv.addSchema({ $id: SCHEMAS, $defs: withReachableRefs(doc.components.schemas) } as object);
});
afterAll(async () => ctx.cleanup());

const deposit = (userId: string, currencyCode: string, amount: number) =>
  ok('post', '/api/admin/deposits', { as: ADMIN, body: { userId, currencyCode, amount } });
const transfer = (user: string, to: number, amount: number) =>
  ok('post', '/api/wallet/transfer', {
    as: user,
    body: { fromFuturesAccountId: null, toFuturesAccountId: to, currencyCode: 'USDT', amount },
  });

describe('every answer matches the response schema the document gives it', () => {
  it('system, reference, admin and markets', async () => {
    for (const p of ['/health', '/ready', '/metrics', '/api/openapi.json', '/config.json']) await ok('get', p);
    await ok('post', '/api/admin/currencies', { as: ADMIN, body: { code: 'DOCX', name: 'Doc coin', decimals: 8 } });
    const pair = {
      kind: 'spot', baseCurrencyCode: 'DOCX', quoteCurrencyCode: 'USDT', digitsPrice: 2, digitsAmount: 4,
      minBaseAmount: 0.0001, minQuoteAmount: 1, makerFee: 0.001, takerFee: 0.002,
    };
    await ok('post', '/api/admin/pairs', { as: ADMIN, body: pair });
    expect((await call('post', '/api/admin/pairs', { as: ADMIN, body: pair })).status).toBe(409);
    await ok('post', '/api/admin/index-price', { as: ADMIN, body: { currencyPairCode: 'BTC_USDT', price: 100 } });
    await ok('get', '/api/admin/insurance-fund', { as: ADMIN });
    await ok('get', '/api/admin/shards', { as: ADMIN });
    await ok('get', '/api/currencies');
    await ok('get', '/api/currencies/pairs');
  });

  it('spot orders, books and trades', async () => {
    for (const u of ['alice', 'bob']) {
      await deposit(u, 'USDT', 1_000_000);
      await deposit(u, 'BTC', 100);
    }
    const sell = await ok('post', '/api/orders', {
      as: 'alice', body: { currencyPairCode: 'BTC_USDT', side: 'sell', type: 'limit', price: 100, amount: 1, clientOrderId: 'a-1' },
    });
    await ok('post', '/api/orders', { as: 'bob', body: { currencyPairCode: 'BTC_USDT', side: 'buy', type: 'market', quoteAmount: 50 } });
    await ok('get', '/api/orders?currencyPairCode=BTC_USDT', { as: 'alice' });
    await ok('get', `/api/orders/${sell.id}`, { as: 'alice' });
    expect((await call('get', `/api/orders/${sell.id}`, { as: 'bob' })).status).toBe(404);
    await ok('get', '/api/orderbook/BTC_USDT');
    await ok('get', '/api/trades/BTC_USDT');
    await ok('get', '/api/trades/BTC_USDT/user', { as: 'bob' });
    await ok('delete', `/api/orders/${sell.id}`, { as: 'alice' });
    expect((await call('delete', `/api/orders/${sell.id}`, { as: 'alice' })).status).toBe(409);
    await ok('post', '/api/orders', { as: 'alice', body: { currencyPairCode: 'BTC_USDT', side: 'sell', type: 'limit', price: 120, amount: 1 } });
    const cancelled = await ok('delete', '/api/orders?currencyPairCode=BTC_USDT', { as: 'alice' });
    expect(cancelled.cancelled).toHaveLength(1);
    await ok('get', '/api/wallet/balances', { as: 'alice' });
    expect((await call('post', '/api/orders', { body: {} })).status).toBe(401);
    expect((await call('post', '/api/orders', { as: 'alice', body: { currencyPairCode: 'BTC_USDT' } })).status).toBe(400);
  });

  it('futures accounts, orders, positions and deals', async () => {
    const accounts: Record<string, number> = {};
    for (const u of ['fay', 'gus']) {
      await deposit(u, 'USDT', 100_000);
      accounts[u] = (await ok('post', '/api/futures/accounts', { as: u, body: { name: `${u}-main`, currencyCode: 'USDT', leverage: 10 } })).id;
      await transfer(u, accounts[u], 50_000);
    }
    await ok('get', '/api/futures/accounts', { as: 'fay' });
    const order = (u: string, isLong: boolean) => ({
      isMarket: false, isLong, price: 100, amount: 1, currencyPairCode: 'BTC_USDT', futuresAccountId: accounts[u],
    });
    const long = await ok('post', '/api/futures/trade/create-order', { as: 'fay', body: order('fay', true) });
    await ok('post', '/api/futures/trade/create-order', { as: 'gus', body: order('gus', false) });
    await ok('put', '/api/futures/trade/update-take-profit', { as: 'fay', body: { orderId: long.id, takeProfit: 150 } });
    await ok('put', '/api/futures/trade/update-stop-loss', { as: 'fay', body: { orderId: long.id, stopLoss: 50 } });
    await ok('get', '/api/futures/trade/orders-history', { as: 'fay' });
    const positions = await ok('get', '/api/futures/trade/positions?IsActive=true', { as: 'fay' });
    expect(positions.map((p: { id: number }) => p.id)).toContain(long.id);
    await ok('get', '/api/futures/trade/orderbook/BTC_USDT');
    await ok('get', '/api/futures/exchange-data/pairs');
    await ok('get', '/api/futures/exchange-data/candles?CurrencyPair=BTC_USDT');
    const deals = await ok('get', '/api/futures/deals?CurrencyPair=BTC_USDT');
    expect(deals.totalCount).toBeGreaterThan(0);
    await ok('get', '/api/futures/deals/user', { as: 'fay' });
    await ok('put', '/api/futures/trade/close', { as: 'fay', body: { orderId: long.id, isMarket: false, limitPrice: 110 } });
    expect((await call('put', '/api/futures/trade/close', { as: 'gus', body: { orderId: long.id, isMarket: true } })).status).toBe(404);
  });

  it('copy trading: a master, a follower, and their lists', async () => {
    await deposit('max', 'USDT', 20_000);
    const master = await ok('post', '/api/copy-master', {
      as: 'max',
      body: {
        name: 'Max', strategyName: 'Trend', strategyDescription: 'Slow #btc', leverage: 10, currencyCode: 'USDT',
        slaveIncomePercentage: 20, commissionRate: 1, amount: 10_000,
      },
    });
    const M = `/api/copy-master/${master.id}`;
    await ok('get', '/api/copy-master', { as: 'max' });
    await ok('get', '/api/copy-master/public-masters');
    await ok('get', `${M}/analytics`);
    expect((await call('get', '/api/copy-master/999999/analytics')).status).toBe(404);
    for (const list of ['positions', 'positions-history', 'trades']) await ok('get', `${M}/${list}`);

    await deposit('sam', 'USDT', 5_000);
    const slave = await ok('post', '/api/copy-slave', { as: 'sam', body: { name: 'Sam', leverage: 10, currencyCode: 'USDT' } });
    await transfer('sam', slave.id, 5_000);
    await ok('get', '/api/copy-slave', { as: 'sam' });
    const settings = { copyMasterFuturesAccountId: master.id, copySlaveFuturesAccountId: slave.id, margin: 1_000 };
    await ok('post', '/api/copy-slave/startMasterCopy', { as: 'sam', body: settings });
    await ok('get', `${M}/slaves`, { as: 'max' });
    expect((await call('get', `${M}/slaves`, { as: 'sam' })).status).toBe(403);
    await ok('get', '/api/copy-slave/following', { as: 'sam' });
    const S = `/api/copy-slave/${slave.id}`;
    await ok('get', `${S}/subscriptions`, { as: 'sam' });
    for (const scope of [S, `${S}/${master.id}`]) {
      for (const list of ['positions', 'trades', 'positions-history']) await ok('get', `${scope}/${list}`, { as: 'sam' });
    }
    await ok('get', `${S}/${master.id}/settings`, { as: 'sam' });
    await ok('get', `${S}/${master.id}/analytics`, { as: 'sam' });
    await ok('get', `${S}/${master.id}/skips`, { as: 'sam' });
    await ok('post', '/api/copy-slave/updateMasterCopySettings', { as: 'sam', body: { ...settings, margin: 1_500 } });
    const finish = { copyMasterFuturesAccountId: master.id, copySlaveFuturesAccountId: slave.id, closeOrders: true };
    await ok('post', '/api/copy-slave/finishMasterCopy', { as: 'sam', body: finish });
    expect((await call('post', '/api/copy-slave/finishMasterCopy', { as: 'sam', body: finish })).status).toBe(409);
    await ok('delete', S, { as: 'sam' });
    await ok('delete', M, { as: 'max' });
  });

  it('the aggregator feeds', async () => {
    for (const p of ['pairs', 'tickers', 'orderbook', 'orderbook?ticker_id=BTC_USDT', 'historical_trades']) {
      await ok('get', `/api/marketdata/aggregator-a/${p}`);
    }
    for (const p of ['', '/summary', '/asset', '/ticker', '/orderbook/BTC_USDT', '/trades/BTC_USDT']) {
      await ok('get', `/api/marketdata/getaggregatorb${p}`);
    }
    for (const provider of ['aggregator-a', 'aggregator-b']) {
      await ok('get', `/api/external-providers/${provider}/contracts`);
      await ok('get', `/api/external-providers/${provider}/orderbook?ticker_id=BTC_USDT`);
    }
    expect((await call('get', '/api/marketdata/getaggregatorb/trades/NOPE_USDT')).status).toBe(404);
  });

  it('has called every documented operation successfully', () => {
    const documented = Object.entries(doc.paths).flatMap(([t, ops]) => Object.keys(ops).map((m) => `${m} ${t} 200`));
    expect(documented.filter((op) => !seen.has(op))).toEqual([]);
  });
});
