import type { CreateFuturesRequest } from '../../../src/futures';
import { futuresBed } from './helpers';

type Bed = Awaited<ReturnType<typeof futuresBed>>;
let b: Bed;
afterEach(async () => b.ctx.cleanup());

const market = (futuresAccountId: number, amount: number, clientOrderId: string): CreateFuturesRequest => ({
  isMarket: true, isLong: true, amount, currencyPairCode: 'BTC_USDT', futuresAccountId, clientOrderId,
});

describe('FuturesOrderService.createMany (the copy fan-out places a chunk with it)', () => {
  it('places a batch in one engine call, each order answered as if it came alone', async () => {
    b = await futuresBed();
    const mm = await b.fundedAccount('mm', 1_000_000);
    await b.order('mm', mm, false, 101, 50);
    const rich = await b.fundedAccount('rich', 10_000);
    const poor = await b.fundedAccount('poor', 1);
    const copyAcct = (await b.ctx.futures.accounts.create('cp', { name: 'c', currencyCode: 'USDT', leverage: 10 }, 'copy')).id;
    const stream = b.ctx.keys.events('futures', 'BTC_USDT');
    const before = await b.ctx.redis.xlen(stream);

    const results = await b.ctx.futures.orders.createMany([
      { userId: 'rich', req: market(rich, 1, 'a') },
      { userId: 'rich', req: market(rich, 0.000001, 'tiny') }, // below the pair minimum: refused before the engine
      { userId: 'poor', req: market(poor, 1, 'b') }, // 101 of notional on 1 USDT at 10x: the engine refuses it
      { userId: 'rich', req: market(rich, 2, 'a') }, // the clientOrderId again: the first order, nothing done
      { userId: 'cp', req: market(copyAcct, 1, 'c') }, // a copy account, not as the copy: 409
    ]);
    const first = results[0];
    expect(first).toMatchObject({ ok: true, clientOrderId: 'a', status: 50, duplicate: false });
    const err = (i: number) => {
      const r = results[i];
      return r.ok ? r : [r.error.status, r.error.code];
    };
    expect([err(1), err(2), err(4)]).toEqual([[422, 'BELOW_MIN_BASE_AMOUNT'], [422, 'INSUFFICIENT_MARGIN'], [409, 'COPY_ACCOUNT']]);
    expect(results[3]).toEqual({ ...first, duplicate: true });
    // one engine call: one stream entry for the whole batch
    expect((await b.ctx.redis.xlen(stream)) - before).toBe(1);
    // placed as the copy, the order passes the copy check and meets the engine (the account is empty)
    const [asCopy] = await b.ctx.futures.orders.createMany([{ userId: 'cp', req: market(copyAcct, 1, 'c') }], true);
    expect(asCopy.ok ? asCopy : asCopy.error.code).toBe('INSUFFICIENT_MARGIN');
  });
});
