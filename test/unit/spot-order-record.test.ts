import { decodeSpotOrder } from '../../src/spot/spot-order-record';

describe('decodeSpotOrder', () => {
  it('reads both fields, leaves empty optional values out, and keeps bars inside the clientOrderId', () => {
    const clid = 'a|b||c';
    const order = decodeSpotOrder('42', {
      spot: ['u1', 'USDT.TRC20_BTC', 'buy', 'market', '', '', '5000', '0', '3', '1700', clid].join('|'),
      state: ['7', '700', '1', '0', 'filled', '1800'].join('|'),
    });
    expect(order).toEqual({
      id: '42', kind: 'spot', user: 'u1', pair: 'USDT.TRC20_BTC', side: 'buy', type: 'market',
      quoteAmount: '5000', postOnly: '0', stp: '3', cts: '1700', clid,
      filled: '7', filledQuote: '700', fee: '1', rsv: '0', status: 'filled', uts: '1800',
    });
    expect(order).not.toHaveProperty('price');
    expect(order).not.toHaveProperty('amount');
  });

  it('answers null for a hash that is no spot order', () => {
    expect(decodeSpotOrder('1', {})).toBeNull();
    expect(decodeSpotOrder('1', { kind: 'futures', id: '1', status: '10' })).toBeNull();
  });
});
