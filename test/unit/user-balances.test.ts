import { parseEntry } from '../../src/platform/market-event';
import { WalletBook, type WalletPart } from '../../src/transport/ws/user-balances';
import { UserChangeSet } from '../../src/transport/ws/user-changes';

/**
 * What the private stream holds of a connection's wallet (src/transport/ws/user-balances.ts): the
 * snapshot's parts with their balance sequences, then the engine's balance events, without Redis.
 */

/** Two shards: ann's wallet at home (shard 0) and in escrow on shard 1, read at sequences 10 and 20. */
const snapshot = () =>
  new WalletBook({
    shards: [
      { seq: 10, avail: { USDT: '1000', BTC: '5' }, rsv: { USDT: '0' } },
      { seq: 20, avail: { USDT: '300' }, rsv: { USDT: '200' } },
    ],
    inFlight: [{ id: 'x1', cur: 'USDT', amount: '50' }],
  });

const part = (shard: number, bs: number, currency: string, more: Partial<WalletPart> = {}): WalletPart => ({ shard, bs, currency, ...more });
const row = (book: WalletBook, cur: string) => {
  const r = book.row(cur);
  return { available: String(r.available), reserved: String(r.reserved) };
};

describe('a connection\'s wallet held from balance events', () => {
  it('a row is the sum over shards and what is in flight, as REST sums it', () => {
    const book = snapshot();
    expect(book.currencies()).toEqual(['BTC', 'USDT']);
    expect(row(book, 'USDT')).toEqual({ available: String(1000 + 300 + 50), reserved: '200' });
    expect(row(book, 'BTC')).toEqual({ available: '5', reserved: '0' });
  });

  it('an event the snapshot already shows changes nothing; a newer one replaces that shard\'s part', () => {
    const book = snapshot();
    book.apply(part(0, 10, 'USDT', { available: '1', reserved: '1' }));
    book.apply(part(1, 19, 'USDT', { available: '1', reserved: '1' }));
    expect(row(book, 'USDT')).toEqual({ available: '1350', reserved: '200' });
    book.apply(part(1, 21, 'USDT', { available: '250', reserved: '250' }));
    expect(row(book, 'USDT')).toEqual({ available: String(1000 + 250 + 50), reserved: '250' });
  });

  it('a late event (another stream of the same shard, read after a newer one) never puts an older value back', () => {
    const book = snapshot();
    book.apply(part(0, 12, 'USDT', { available: '900', reserved: '100' }));
    book.apply(part(0, 11, 'USDT', { available: '950', reserved: '50' }));
    expect(row(book, 'USDT')).toEqual({ available: String(900 + 300 + 50), reserved: '300' });
  });

  it('a transfer between shards changes no row, whichever shard\'s event is seen first', () => {
    for (const order of [['out', 'in'], ['in', 'out']]) {
      const book = snapshot();
      const before = row(book, 'USDT');
      const events = {
        // 100 leaves home (shard 0) for escrow on shard 1: in flight, then credited there
        out: part(0, 11, 'USDT', { available: '900', reserved: '0', out: { id: 'x2', amount: '100' } }),
        in: part(1, 21, 'USDT', { available: '400', reserved: '200', arrived: { id: 'x2', amount: '100' } }),
      } as const;
      for (const name of order) {
        book.apply(events[name as 'out' | 'in']);
        expect(row(book, 'USDT')).toEqual(before);
      }
    }
  });

  it('the snapshot\'s transfer in flight is counted until its credit is seen', () => {
    const book = snapshot();
    book.apply(part(1, 21, 'USDT', { available: '350', reserved: '200', arrived: { id: 'x1', amount: '50' } }));
    expect(row(book, 'USDT')).toEqual({ available: String(1000 + 350), reserved: '200' });
  });

  it('balance events of a market entry and a user event entry become parts of their shard', () => {
    const spot = parseEntry('1-1', ['ts', '1', 'ev', JSON.stringify(['accepted|9|ann|buy|limit|100|1', 'bal|31|ann|USDT|700|300', 'bal|31|bob|USDT|5|0'])]);
    const set = new UserChangeSet((u) => u === 'ann', 1);
    set.addMarketEntry('spot', {
      id: 1, kind: 'spot', code: 'BTC_USDT', baseCurrencyCode: 'BTC', quoteCurrencyCode: 'USDT', digitsPrice: 2, digitsAmount: 6,
      minBaseAmount: 0, minQuoteAmount: 0, makerFee: 0, takerFee: 0, isActive: true, baseDecimals: 8, quoteDecimals: 8,
    }, spot);
    expect([...set.byUser.keys()]).toEqual(['ann']);
    expect(set.byUser.get('ann')!.parts).toEqual([{ shard: 1, bs: 31, currency: 'USDT', available: '700', reserved: '300' }]);
    expect(set.byUser.get('ann')!.wallet.get('USDT')).toBe('order');

    const sent = parseEntry('2-1', ['ts', '2', 'ev', JSON.stringify([
      { e: 'wallet', u: 'ann', c: 'USDT', r: 'transfer', bs: '12', a: '900', rs: '0', xo: 'x2', xa: '100' },
    ])]);
    const home = new UserChangeSet(() => true, 0);
    home.addUserEntry(sent);
    expect(home.byUser.get('ann')!.parts).toEqual([
      { shard: 0, bs: 12, currency: 'USDT', available: '900', reserved: '0', out: { id: 'x2', amount: '100' } },
    ]);
    expect(home.byUser.get('ann')!.wallet.get('USDT')).toBe('transfer');
  });
});
