import request from 'supertest';
import type { Express } from 'express';
import { bearer, createApp, testContext } from '../../support/harness';

/**
 * Errors that say what to do (issue 26 finding 6): a body that is not JSON, a market buy with
 * `amount`, an unknown pair in a body field (400) and in a path (404), each with a message a
 * newcomer can act on, and nothing changed.
 */
type Ctx = Awaited<ReturnType<typeof testContext>>;
let ctx: Ctx;
let app: Express;

const openOrders = async () =>
  (await request(app).get('/api/orders').set('Authorization', bearer('erin'))).body.totalCount as number;

beforeAll(async () => {
  ctx = await testContext();
  app = createApp(ctx);
  await ctx.wallets.deposit('erin', 'USDT', 100_000);
});
afterAll(async () => {
  await ctx.cleanup();
});

describe('errors that say what to do', () => {
  it('a body sent without Content-Type: application/json is a 415 that names the header, not four "is required"', async () => {
    const res = await request(app)
      .post('/api/orders')
      .set('Authorization', bearer('erin'))
      .set('Content-Type', 'application/x-www-form-urlencoded') // what `curl -d` sends without -H
      .send('{"currencyPairCode":"BTC_USDT","side":"buy","type":"limit","price":100,"amount":1}');
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(res.body.error.message).toMatch(/Content-Type: application\/json/);
    expect(res.body.error.message).toContain('application/x-www-form-urlencoded');
    expect(await openOrders()).toBe(0);
  });

  it('authentication still comes first: the same body without a token is a 401', async () => {
    const res = await request(app).post('/api/orders').set('Content-Type', 'text/plain').send('{}');
    expect(res.status).toBe(401);
  });

  it('a request without a body is not refused for its Content-Type', async () => {
    const res = await request(app).get('/api/currencies').set('Content-Type', 'text/plain');
    expect(res.status).toBe(200);
  });

  it('a market buy with amount says it takes quoteAmount', async () => {
    const res = await request(app)
      .post('/api/orders')
      .set('Authorization', bearer('erin'))
      .send({ currencyPairCode: 'BTC_USDT', side: 'buy', type: 'market', amount: 0.01 });
    expect(res.status).toBe(400);
    const messages = (res.body.error.details as { path: string; message: string }[]).map(
      (d) => `${d.path}: ${d.message}`,
    );
    expect(messages).toEqual(
      expect.arrayContaining([
        'amount: a market buy takes quoteAmount (the quote currency to spend), not amount',
        'quoteAmount: a market buy takes quoteAmount: the quote currency to spend',
      ]),
    );
    expect(JSON.stringify(res.body)).not.toContain('must be [null]');
  });

  it('a limit order with quoteAmount says quoteAmount is for market buys', async () => {
    const res = await request(app)
      .post('/api/orders')
      .set('Authorization', bearer('erin'))
      .send({
        currencyPairCode: 'BTC_USDT',
        side: 'buy',
        type: 'limit',
        price: 100,
        amount: 1,
        quoteAmount: 100,
      });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toContainEqual({
      path: 'quoteAmount',
      message: 'quoteAmount is for market buys only; this order takes amount',
    });
  });

  it('BTC/USDT in an order body: 400, says why it is a 400 and hints BTC_USDT', async () => {
    const res = await request(app)
      .post('/api/orders')
      .set('Authorization', bearer('erin'))
      .send({ currencyPairCode: 'BTC/USDT', side: 'buy', type: 'limit', price: 100, amount: 1 });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('UNKNOWN_CURRENCY_PAIR');
    expect(res.body.error.message).toMatch(
      /^Unknown spot pair BTC\/USDT \(400: currencyPairCode names no listed market;/,
    );
    expect(res.body.error.message).toContain('did you mean BTC_USDT?');
    expect(res.body.error.message).toContain('GET /api/currencies/pairs');
    expect(await openOrders()).toBe(0);
  });

  it('an unknown pair in a path: 404, says why it is a 404 and hints the code', async () => {
    const res = await request(app).get(`/api/orderbook/${encodeURIComponent('btc-usdt')}`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('PAIR_NOT_FOUND');
    expect(res.body.error.message).toMatch(
      /^Unknown spot pair btc-usdt \(404: the path names no listed market;/,
    );
    expect(res.body.error.message).toContain('did you mean BTC_USDT?');
  });

  it('a pair listed only as the other kind says which kind it is; a well-formed unknown code gets no hint', async () => {
    const spotOnly = await request(app).get('/api/futures/trade/orderbook/BTC_USDT.TRC20');
    expect(spotOnly.status).toBe(404);
    expect(spotOnly.body.error.message).toContain('BTC_USDT.TRC20 is a spot pair');
    const unknown = await request(app).get('/api/orderbook/NOPE_USDT');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).not.toMatch(/did you mean|is a futures pair/);
  });
});
