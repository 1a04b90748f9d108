import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pairRuleViolation, type PairRequest } from '../../src/domain/pair-rules';
import type { Currency } from '../../src/domain/market';

const usdt: Currency = { code: 'USDT', name: 'Tether', decimals: 8 };
const btc: Currency = { code: 'BTC', name: 'Bitcoin', decimals: 8 };
const futures: PairRequest = {
  kind: 'futures', baseCurrencyCode: 'BTC', quoteCurrencyCode: 'USDT', digitsPrice: 1, digitsAmount: 4,
  minBaseAmount: 0.0001, minQuoteAmount: 5, makerFee: 0.0002, takerFee: 0.0005,
  contractValue: 1, lotSize: 0.0001, maxLeverage: 100, maintenanceMarginRate: 0.005,
};
const code = (req: PairRequest) => {
  const v = pairRuleViolation(req, btc, usdt);
  return v && [v.status, v.code];
};

describe('pair rules at creation (issue 10, finding 4)', () => {
  it('accepts a sound futures pair and every pair of config/markets.json', () => {
    expect(code(futures)).toBeNull();
    const file = JSON.parse(readFileSync(resolve(__dirname, '../../config/markets.json'), 'utf8')) as {
      currencies: Currency[]; pairs: PairRequest[];
    };
    const byCode = new Map(file.currencies.map((c) => [c.code, c]));
    for (const p of file.pairs) {
      expect([p.baseCurrencyCode, p.quoteCurrencyCode, pairRuleViolation(p, byCode.get(p.baseCurrencyCode)!, byCode.get(p.quoteCurrencyCode)!)])
        .toEqual([p.baseCurrencyCode, p.quoteCurrencyCode, null]);
    }
  });

  it('refuses maxLeverage x maintenanceMarginRate >= 1 (200x at 1 % starts liquidated), 422 PAIR_LEVERAGE_MARGIN', () => {
    expect(code({ ...futures, maxLeverage: 200, maintenanceMarginRate: 0.01 })).toEqual([422, 'PAIR_LEVERAGE_MARGIN']);
    expect(code({ ...futures, maxLeverage: 100, maintenanceMarginRate: 0.01 })).toEqual([422, 'PAIR_LEVERAGE_MARGIN']);
    expect(code({ ...futures, maxLeverage: 99, maintenanceMarginRate: 0.01 })).toBeNull();
    expect(code({ ...futures, maintenanceMarginRate: 0.0050001 })).toEqual([422, 'PAIR_LEVERAGE_MARGIN']);
  });

  it('refuses a maker fee above the taker fee or below zero, spot and futures, 422 PAIR_FEES', () => {
    expect(code({ ...futures, makerFee: 0.001, takerFee: 0.0005 })).toEqual([422, 'PAIR_FEES']);
    expect(code({ ...futures, kind: 'spot', makerFee: 0.003, takerFee: 0.002 })).toEqual([422, 'PAIR_FEES']);
    expect(code({ ...futures, makerFee: 0.0005, takerFee: 0.0005 })).toBeNull();
  });

  it('refuses a contract value the quote currency cannot count, 422 PAIR_CONTRACT_VALUE', () => {
    // 8 decimals - 1 - 4 digits: one tick of one lot is 1000 x contractValue minor units
    expect(code({ ...futures, contractValue: 0.0001 })).toEqual([422, 'PAIR_CONTRACT_VALUE']);
    expect(code({ ...futures, contractValue: 0.0015 })).toEqual([422, 'PAIR_CONTRACT_VALUE']);
    expect(code({ ...futures, contractValue: 0.001 })).toBeNull();
  });

  it('keeps the older rules at 400', () => {
    expect(code({ ...futures, digitsPrice: 5 })).toEqual([400, 'PAIR_DIGITS_EXCEED_CURRENCY']);
  });
});
