import { decodeFuturesOrder, futuresOrderOf } from '../../src/futures/futures-order-record';

describe('decodeFuturesOrder', () => {
  it("reads an opening order's two fields into the flat record, empty values kept, bars inside the clientOrderId", () => {
    const clid = 'a|b||c';
    const fixed = ['7', 'open', 'u1', '3', 'BTC_USDT', 'buy', '0', '500000', '10', '20', '0', '1', '1700', '', clid];
    const state = ['4', '90', '2000000', '2000000', '4', '100', '100', '2', '0', '-1', '50', '', '450000', '475001', '', '', '1', '1800'];
    expect(decodeFuturesOrder({ futures: fixed.join('|'), state: state.join('|') })).toEqual({
      kind: 'futures', id: '7', role: 'open', user: 'u1', acct: '3', pair: 'BTC_USDT', side: 'buy', isMarket: '0',
      price: '500000', amount: '10', lev: '20', stp: '0', postOnly: '1', cts: '1700', clid,
      filled: '4', rsv: '90', cost: '2000000', ecost: '2000000', openQty: '4', margin: '100', imargin: '100', fee: '2',
      rpnl: '0', funding: '-1', status: '50', tp: '', sl: '450000', liq: '475001', closeOrd: '', closeReason: '',
      resting: '1', uts: '1800',
    });
  });

  it('gives a close order only the fields a close order has', () => {
    const fixed = ['9', 'close', 'u1', '3', 'BTC_USDT', 'sell', '', '510000', '4', '', '', '', '', '7', ''];
    const order = decodeFuturesOrder({ futures: fixed.join('|'), state: '4|0|1900' });
    expect(order).toEqual({
      kind: 'futures', id: '9', role: 'close', user: 'u1', acct: '3', pair: 'BTC_USDT', side: 'sell', price: '510000',
      amount: '4', pos: '7', filled: '4', resting: '0', uts: '1900',
    });
  });

  it('answers null (and futuresOrderOf {}) for a hash that is no futures order', () => {
    expect(decodeFuturesOrder({})).toBeNull();
    expect(decodeFuturesOrder({ spot: 'u1|X|buy|limit|1|1||0|0|1|', state: '0|0|0|0|open|1' })).toBeNull();
    expect(futuresOrderOf({})).toEqual({});
  });
});
