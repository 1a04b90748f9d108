import fc from 'fast-check';
import BigNumber from 'bignumber.js';
import { fitsEngine, fromMinor, shiftDecimal, toMinorDown } from '../../src/domain/decimal';
import { splitPairCode } from '../../src/domain/market';

describe('decimal conversions', () => {
  it('rounds down to the digits, never up', () => {
    expect(toMinorDown(0.1234567, 6).toFixed()).toBe('123456');
    expect(toMinorDown(100.019, 2).toFixed()).toBe('10001');
    expect(toMinorDown(0.3, 1).toFixed()).toBe('3'); // 0.3 is not exact in binary; the decimal form is
  });

  it('round-trips every value that already has at most `digits` decimals', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 40 }), fc.integer({ min: 0, max: 8 }), (minor, digits) => {
        const value = fromMinor(String(minor), digits);
        expect(toMinorDown(value, digits).toFixed()).toBe(String(minor));
      }),
    );
  });

  it('reads an integer string as BigNumber does, signs and leading zeros of the fraction included', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 62n), max: 2n ** 62n }), fc.integer({ min: 0, max: 18 }), (minor, digits) => {
        const text = minor.toString();
        expect(shiftDecimal(text, digits)).toBe(new BigNumber(text).shiftedBy(-digits).toFixed());
        expect(Object.is(fromMinor(text, digits), new BigNumber(text).shiftedBy(-digits).toNumber())).toBe(true);
      }),
    );
  });

  it('knows the exact-integer bound of the engine', () => {
    expect(fitsEngine(toMinorDown(Number.MAX_SAFE_INTEGER, 0))).toBe(true);
    expect(fitsEngine(toMinorDown(1e16, 0))).toBe(false);
  });
});

describe('pair codes', () => {
  it('split on the underscore only, so dotted currency codes survive', () => {
    expect(splitPairCode('BTC_USDT.TRC20')).toEqual(['BTC', 'USDT.TRC20']);
    expect(splitPairCode('BTC.USDT')).toBeNull();
    expect(splitPairCode('A_B_C')).toBeNull();
  });
});
