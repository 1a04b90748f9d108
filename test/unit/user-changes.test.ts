import type { Pair } from '../../src/domain/market';
import { parseEntry } from '../../src/platform/market-event';
import { UserChangeSet } from '../../src/transport/ws/user-changes';

/**
 * What one stream entry changed for whom (src/transport/ws/user-changes.ts): the private stream's
 * map from the engine's events to frames, without Redis.
 */
const PAIR: Pair = {
  id: 1, kind: 'spot', code: 'BTC_USDT', baseCurrencyCode: 'BTC', quoteCurrencyCode: 'USDT', digitsPrice: 2, digitsAmount: 6,
  minBaseAmount: 0, minQuoteAmount: 0, makerFee: 0.001, takerFee: 0.002, isActive: true, baseDecimals: 8, quoteDecimals: 8,
};

const TS = 1795860000000;

const BOB_FIXED = 'bob|BTC_USDT|buy|limit|5000000|10000||0|0|1795860000000|';
const BOB_STATE = '10000|50000000000|20|0|filled|1795860000000|1';
const ANN_STATE = '10000|50000000000|500000|0|filled|1795860000000|3';

/** A spot entry as the engine writes it: maker 7 (ann, a resting sell) filled by taker 9 (bob's buy). */
function spotEntry() {
  const events = [
    'accepted|9|bob|buy|limit|5000000|10000',
    // the maker's end: done, its state (version 3: placed, partly filled, now filled), then the trade
    'done|7|ann|filled',
    `st|7|ann|${ANN_STATE}`,
    // trade|id|ts|p|q|side|tk|mk|tu|mu|tf|mf (the history record; its ts is the entry's)
    'trade|3|1795860000000|5000000|10000|buy|9|7|bob|ann|20|500000',
    'done|9|bob|filled',
    // the taker's record and first state
    `new|9|${BOB_FIXED}`,
    `st|9|bob|${BOB_STATE}`,
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
    // each order's state as written, a new order's with its fixed fields
    expect(bob.orders).toEqual([{ kind: 'spot', id: '9', state: BOB_STATE, fixed: BOB_FIXED }]);
    expect(ann.orders).toEqual([{ kind: 'spot', id: '7', state: ANN_STATE }]);
    expect(bob.fills).toEqual([{
      tradeId: 3, orderId: 9, kind: 'spot', currencyPairCode: 'BTC_USDT', side: 'buy', price: 50_000, amount: 0.01,
      fee: 0.0000002, feeCurrency: 'BTC', liquidity: 'taker', timestamp: new Date(TS).toISOString(),
    }]);
    expect(ann.fills[0]).toMatchObject({ orderId: 7, side: 'sell', fee: 0.005, feeCurrency: 'USDT', liquidity: 'maker' });
    // the reservation (order) gives way to the trade; a done after the trade keeps trade
    expect([...bob.wallet.entries()].sort()).toEqual([['BTC', 'trade'], ['USDT', 'trade']]);
    expect([...ann.wallet.entries()].sort()).toEqual([['BTC', 'trade'], ['USDT', 'trade']]);
  });

  it('only users connected here: nothing is collected for the others', () => {
    const set = new UserChangeSet((u) => u === 'ann');
    set.addMarketEntry('spot', PAIR, spotEntry());
    expect([...set.byUser.keys()]).toEqual(['ann']);
    expect(set.byUser.get('ann')!.fills.map((f) => f.liquidity)).toEqual(['maker']);
  });

  it('futures: positions are their orders\' states; fills name the positions, a funding payment the account (reason funding)', () => {
    const futures = { ...PAIR, kind: 'futures' as const };
    const posState = '10000|0|50000000000|50000000000|10000|25000|25000|10|0|5|50||||||0|1795860000000|4';
    const events = [
      // ... tf|mf|tpnl|mpnl|tpos|mpos|tl|ml|tt|to|mo
      'trade|4|1795860000000|5000000|10000|sell|11|10|bob|ann|25|10|0|0|11|10|0|1|3|10000|10000',
      { e: 'fund', pos: '10', u: 'ann', a: '2', amt: '-5' },
      `st|10|ann|${posState}`,
    ];
    const set = new UserChangeSet(() => true);
    set.addMarketEntry('futures', futures, parseEntry('1795860000000-0', ['ts', '1795860000000', 'ev', JSON.stringify(events)]));
    const ann = set.byUser.get('ann')!;
    const bob = set.byUser.get('bob')!;
    expect(ann.orders).toEqual([{ kind: 'futures', id: '10', state: posState }]);
    expect(bob.orders).toEqual([]);
    expect(ann.fills[0]).toMatchObject({ orderId: 10, side: 'buy', liquidity: 'maker', feeCurrency: 'USDT' });
    expect(bob.fills[0]).toMatchObject({ orderId: 11, side: 'sell', liquidity: 'taker' });
    // the taker's trade type 3 is a liquidation's fill; for the maker the first telling reason (its
    // trade) stays over the funding that follows in the same entry
    expect(bob.accounts).toBe('liquidation');
    expect(ann.accounts).toBe('trade');
  });

  it('several states of one order in one entry (a batch) are each kept, in order', () => {
    const states = ['0|0|0|500|open|1|1', '2|1000|1|300|partiallyFilled|1|2', '5|2500|3|0|filled|1|3'];
    const events = states.map((st) => `st|7|ann|${st}`);
    const set = new UserChangeSet(() => true);
    set.addMarketEntry('spot', PAIR, parseEntry('1-0', ['ts', '1', 'ev', JSON.stringify(events)]));
    expect(set.byUser.get('ann')!.orders.map((o) => o.state)).toEqual(states);
  });

  it('user stream entries: wallets and accounts with their reasons', () => {
    const set = new UserChangeSet(() => true);
    const ev = [{ e: 'wallet', u: 'ann', c: 'USDT', r: 'transfer' }, { e: 'account', u: 'ann', a: '2', r: 'transfer' }];
    set.addUserEntry(parseEntry('1-0', ['ts', '5', 'ev', JSON.stringify(ev)]));
    const ann = set.byUser.get('ann')!;
    expect([...ann.wallet.entries()]).toEqual([['USDT', 'transfer']]);
    expect(ann.accounts).toBe('transfer');
  });
});
