import request from 'supertest';
import { canonicalJson, canonicalUrl } from '../../../src/platform/http/canonical-request';
import { bearer } from '../../support/harness';
import { futuresBed } from '../futures/helpers';

/**
 * Issue 24 finding 5 (docs/architecture.md, Exactly once): an Idempotency-Key's fingerprint is over
 * the canonical request, so the same body with its keys in another order, or a number spelled
 * another way, replays the first answer instead of a 422; another body is still a 422.
 */
let bed: Awaited<ReturnType<typeof futuresBed>>;
beforeAll(async () => {
  bed = await futuresBed();
});
afterAll(async () => bed.ctx.cleanup());

async function fundedAccount(user: string): Promise<number> {
  await bed.ctx.wallets.deposit(user, 'USDT', 1000);
  return Number((await bed.ctx.futures.accounts.create(user, { name: 'main', currencyCode: 'USDT', leverage: 10 })).id);
}

const wallet = async (user: string) => (await bed.ctx.wallets.balances(user)).find((b) => b.currencyCode === 'USDT')?.available;

describe('the same request in other spellings replays the first answer', () => {
  it.each([
    ['keys in another order', (acct: number) => `{"amount":100,"currencyCode":"USDT","toFuturesAccountId":${acct},"fromFuturesAccountId":null}`],
    ['100.0 for 100', (acct: number) => `{"fromFuturesAccountId":null,"toFuturesAccountId":${acct},"currencyCode":"USDT","amount":100.0}`],
    ['1e2 for 100, keys reversed', (acct: number) => `{"amount":1e2,"currencyCode":"USDT","toFuturesAccountId":${acct},"fromFuturesAccountId":null}`],
  ])('%s', async (_name, respelled) => {
    const user = `ic${Math.random().toString(36).slice(2, 8)}`;
    const acct = await fundedAccount(user);
    const send = (json: string) =>
      request(bed.app)
        .post('/api/wallet/transfer')
        .set('Authorization', bearer(user))
        .set('Idempotency-Key', 'k1')
        .set('Content-Type', 'application/json')
        .send(json);
    const first = await send(`{"fromFuturesAccountId":null,"toFuturesAccountId":${acct},"currencyCode":"USDT","amount":100}`);
    expect(first.status).toBe(200);
    const again = await send(respelled(acct));
    expect([again.status, again.headers['idempotent-replayed']]).toEqual([first.status, 'true']);
    expect(again.body).toEqual(first.body);
    expect(await wallet(user)).toBe(900);

    const other = await send(`{"fromFuturesAccountId":null,"toFuturesAccountId":${acct},"currencyCode":"USDT","amount":101}`);
    expect([other.status, other.body.error?.code]).toEqual([422, 'IDEMPOTENCY_KEY_REUSED']);
    expect(await wallet(user)).toBe(900);
  });
});

describe('canonical forms', () => {
  it('sorts keys at every depth and keeps arrays in order', () => {
    const a = JSON.parse('{"b":{"y":[3,{"q":1,"p":2}],"x":1.50},"a":null}');
    const b = JSON.parse('{"a":null,"b":{"x":1.5,"y":[3,{"p":2,"q":1}]}}');
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(canonicalJson(JSON.parse('{"y":[1,2]}'))).not.toBe(canonicalJson(JSON.parse('{"y":[2,1]}')));
  });

  it('keeps a __proto__ key as a key', () => {
    expect(canonicalJson(JSON.parse('{"__proto__":{"amount":1},"a":1}'))).toBe('{"__proto__":{"amount":1},"a":1}');
    expect(canonicalJson(JSON.parse('{"a":1}'))).not.toBe(canonicalJson(JSON.parse('{"__proto__":{},"a":1}')));
  });

  it('reads query names as the validation does (any case, any order)', () => {
    expect(canonicalUrl('/api/orders?Page=1&currencyPairCode=BTC_USDT')).toBe(canonicalUrl('/api/orders?currencypaircode=BTC_USDT&page=1'));
    expect(canonicalUrl('/api/orders?page=1')).not.toBe(canonicalUrl('/api/orders?page=2'));
    expect(canonicalUrl('/api/orders')).toBe('/api/orders');
  });
});
