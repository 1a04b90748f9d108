import { parseEntry, parseEvents, unpackEvent } from '../../src/platform/market-event';
import { parseTradeRecord } from '../../src/market-data/trade-history';

// Packed events as lua/includes/packedEvent.lua, publishEvents and tradeHistory write them (docs/events.md).
const SPOT_RECORD = '41|1700000000123|5000|3|buy|17|9|alice|bob|2|1';
const FUTURES_RECORD = '42|1700000000456|5010|2|sell|18|10|carol|dave|6|3|0|-25|18|7|0|1|2';

describe('packed market events', () => {
  test('each kind expands to the object it stands for', () => {
    expect(unpackEvent('accepted|17|alice|buy|limit|5000|3')).toEqual({
      e: 'accepted', id: '17', u: 'alice', side: 'buy', type: 'limit', p: '5000', a: '3',
    });
    // a market order's price and a budget order's amount are empty
    expect(unpackEvent('accepted|18|bob|sell|market||')).toEqual({
      e: 'accepted', id: '18', u: 'bob', side: 'sell', type: 'market', p: '', a: '',
    });
    expect(unpackEvent('done|17|alice|filled')).toEqual({ e: 'done', id: '17', u: 'alice', status: 'filled' });
    expect(unpackEvent('book|asks|5000|0')).toEqual({ e: 'book', side: 'asks', p: '5000', q: '0' });
  });

  test('a trade is its history record without the time, then to and mo on futures', () => {
    expect(unpackEvent(`trade|${SPOT_RECORD}`)).toEqual({
      e: 'trade', id: '41', p: '5000', q: '3', side: 'buy', tk: '17', mk: '9', tu: 'alice', mu: 'bob', tf: '2', mf: '1',
    });
    const fut = unpackEvent(`trade|${FUTURES_RECORD}|2|0`);
    expect(fut).toEqual({
      e: 'trade', id: '42', p: '5010', q: '2', side: 'sell', tk: '18', mk: '10', tu: 'carol', mu: 'dave', tf: '6', mf: '3',
      tpnl: '0', mpnl: '-25', tpos: '18', mpos: '7', tl: '0', ml: '1', tt: '2', to: '2', mo: '0',
    });
    // the same fields the history reader takes from the stored record
    const stored = parseTradeRecord(FUTURES_RECORD);
    for (const [k, v] of Object.entries(stored)) if (k !== 'ts') expect(fut[k]).toBe(String(v));
    expect(stored.ts).toBe(1700000000456);
  });

  test("an order's state and a new order's fixed fields keep their bars", () => {
    expect(unpackEvent('st|17|alice|3|15000|0|0|partiallyFilled|1700000000123|2')).toEqual({
      e: 'st', id: '17', u: 'alice', state: '3|15000|0|0|partiallyFilled|1700000000123|2',
    });
    // the clientOrderId is free text, last: a bar in it stays
    expect(unpackEvent('new|17|alice|BTC_USDT|buy|limit|5000|3||0|0|1700000000123|my|id')).toEqual({
      e: 'new', id: '17', fixed: 'alice|BTC_USDT|buy|limit|5000|3||0|0|1700000000123|my|id',
    });
  });

  test('an entry mixes packed events and objects, in order', () => {
    const ev = JSON.stringify([
      'accepted|17|alice|buy|limit|5000|3',
      `trade|${SPOT_RECORD}`,
      { e: 'trigger', id: '5', u: 'alice', tp: '6000', sl: '' },
      'book|asks|5000|0',
    ]);
    const entry = parseEntry('1700000000999-0', ['ts', '1700000000123', 'seq', '7', 'ev', ev]);
    expect(entry.ts).toBe(1700000000123);
    expect(entry.seq).toBe(7);
    expect(entry.events.map((e) => e.e)).toEqual(['accepted', 'trade', 'trigger', 'book']);
    expect(entry.events[2]).toEqual({ e: 'trigger', id: '5', u: 'alice', tp: '6000', sl: '' });
    expect(parseEvents('[]')).toEqual([]);
  });

  test('an unknown packed kind is an error, not an event without fields', () => {
    expect(() => unpackEvent('nonsense|1|2')).toThrow(/unknown packed market event: nonsense/);
  });
});
