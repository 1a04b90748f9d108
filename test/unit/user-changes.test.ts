import type { Pair } from '../../src/domain/market';
import { parseEntry } from '../../src/platform/market-event';
import { UserChangeSet } from '../../src/transport/ws/user-changes';
import { updateIdOf } from '../../src/transport/ws/user-feed';

/**
 * What one stream entry changed for whom (src/transport/ws/user-changes.ts): the private stream's
 * map from the engine's events to frames, without Redis.
 */
const PAIR: Pair = {
  id: 1, kind: 'spot', code: 'BTC_USDT', baseCurrencyCode: 'BTC', quoteCurrencyCode: 'USDT', digitsPrice: 2, digitsAmount: 6,
  minBaseAmount: 0, minQuoteAmount: 0, makerFee: 0.001, takerFee: 0.002, isActive: true, baseDecimals: 8, quoteDecimals: 8,
};

const TS = 1795860000000;

/** A spot entry as the engine writes it: maker 7 (ann, a resting sell) filled by taker 9 (bob's buy). */
function spotEntry() {
  const events = [
    'accepted|9|bob|buy|limit|5000000|10000',
    // trade|id|ts|p|q|side|tk|mk|tu|mu|tf|mf (the history record; its ts is the entry's)
    'trade|3|1795860000000|5000000|10000|buy|9|7|bob|ann|20|500000',
    'done|7|ann|filled',
    'done|9|bob|filled',
    'book|asks|5000000|0',
  ];
  return parseEntry(`${TS}-4`, ['ts', String(TS), 'seq', '12', 'ev', JSON.stringify(events)]);
}

describe('user changes of a stream entry', () => {
  it('a trade: each side its order, its fill (maker/taker, fee in the currency received) and both wallet currencies', () => {
    const set = new UserChangeSet(() => true);
    set.addMarketEntry('spot', PAIR, spotEntry());
    const bob = set.byUser.get('bob')!;
    const ann = set.byUser.get('ann')!;
    expect(bob.orders).toEqual([{ kind: 'spot', id: '9' }]);
    expect(ann.orders).toEqual([{ kind: 'spot', id: '7' }]);
    expect(bob.fills).toEqual([{
      tradeId: 3, orderId: 9, kind: 'spot', currencyPairCode: 'BTC_USDT', side: 'buy', price: 50_000, amount: 0.01,
      fee: 0.0000002, feeCurrency: 'BTC', liquidity: 'taker', timestamp: new Date(TS).toISOString(),
    }]);
    expect(ann.fills[0]).toMatchObject({ orderId: 7, side: 'sell', fee: 0.005, feeCurrency: 'USDT', liquidity: 'maker' });
    // the reservation (order) gives way to the trade; a done after the trade keeps trade
    expect([...bob.wallet.entries()].sort()).toEqual([['BTC', 'trade'], ['USDT', 'trade']]);
    expect([...ann.wallet.entries()].sort()).toEqual([['BTC', 'trade'], ['USDT', 'trade']]);
    expect(bob.positions).toEqual([]);
  });

  it('only users connected here: nothing is collected for the others', () => {
    const set = new UserChangeSet((u) => u === 'ann');
    set.addMarketEntry('spot', PAIR, spotEntry());
    expect([...set.byUser.keys()]).toEqual(['ann']);
    expect(set.byUser.get('ann')!.fills.map((f) => f.liquidity)).toEqual(['maker']);
  });

  it('futures: fills name the positions, a funding payment its position and the account (reason funding)', () => {
    const futures = { ...PAIR, kind: 'futures' as const };
    const events = [
      // ... tf|mf|tpnl|mpnl|tpos|mpos|tl|ml|tt|to|mo
      'trade|4|1795860000000|5000000|10000|sell|11|10|bob|ann|25|10|0|0|11|10|0|1|3|10000|10000',
      { e: 'fund', pos: '10', u: 'ann', a: '2', amt: '-5' },
    ];
    const set = new UserChangeSet(() => true);
    set.addMarketEntry('futures', futures, parseEntry('1795860000000-0', ['ts', '1795860000000', 'ev', JSON.stringify(events)]));
    const ann = set.byUser.get('ann')!;
    const bob = set.byUser.get('bob')!;
    expect(ann.positions).toEqual(['10']);
    expect(ann.orders).toEqual([{ kind: 'futures', id: '10' }]);
    expect(ann.fills[0]).toMatchObject({ orderId: 10, side: 'buy', liquidity: 'maker', feeCurrency: 'USDT' });
    expect(bob.fills[0]).toMatchObject({ orderId: 11, side: 'sell', liquidity: 'taker' });
    // the taker's trade type 3 is a liquidation's fill; for the maker the first telling reason (its
    // trade) stays over the funding that follows in the same entry
    expect(bob.accounts).toBe('liquidation');
    expect(ann.accounts).toBe('trade');
  });

  it('user stream entries: wallets and accounts with their reasons', () => {
    const set = new UserChangeSet(() => true);
    const ev = [{ e: 'wallet', u: 'ann', c: 'USDT', r: 'transfer' }, { e: 'account', u: 'ann', a: '2', r: 'transfer' }];
    set.addUserEntry(parseEntry('1-0', ['ts', '5', 'ev', JSON.stringify(ev)]));
    const ann = set.byUser.get('ann')!;
    expect([...ann.wallet.entries()]).toEqual([['USDT', 'transfer']]);
    expect(ann.accounts).toBe('transfer');
  });

  it('updateId: one number per stream entry, rising with the entry ids', () => {
    const ids = ['1795860000000-0', '1795860000000-1', '1795860000001-0', '1795860000001-998'];
    const ups = ids.map(updateIdOf);
    expect(ups).toEqual([1795860000000000, 1795860000000001, 1795860000001000, 1795860000001998]);
    expect(Number.isSafeInteger(ups[3])).toBe(true);
  });
});
