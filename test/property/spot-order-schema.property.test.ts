import fc from 'fast-check';
import { STP_MODES } from '../../src/domain/order';
import { placeSpotOrderSchema, plainSpotOrder } from '../../src/spot/http/spot-order.schema';

/**
 * plainSpotOrder, the shortcut past joi on POST /api/orders, may only answer for a body joi
 * accepts, with joi's value (defaults included); anything else it must leave to joi, whose errors
 * the client then gets. Bodies are drawn around the real shape: each field missing, null, of the
 * wrong type, at and past its limits, plus unknown fields.
 */
const joi = (body: unknown) => placeSpotOrderSchema.validate(body ?? {}, { abortEarly: false, convert: false, stripUnknown: false });

const number = fc.oneof(
  fc.constantFrom(0, -1, 1, 0.5, 1e-9, 50_000.25, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 2, 1e300),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);
const anything = fc.oneof(fc.constant(null), fc.boolean(), fc.string({ maxLength: 3 }), fc.constant([]), fc.constant({}), number);
/** A field's value: usually one that fits some order, sometimes anything. */
const field = <T>(fits: fc.Arbitrary<T>) => fc.option(fc.oneof({ weight: 4, arbitrary: fits }, { weight: 1, arbitrary: anything }), { nil: undefined, freq: 3 });

const body = fc
  .record(
    {
      currencyPairCode: field(fc.oneof(fc.constantFrom('BTC_USDT', ''), fc.string({ minLength: 79, maxLength: 82 }))),
      side: field(fc.constantFrom('buy', 'sell', 'BUY')),
      type: field(fc.constantFrom('limit', 'market', 'stop')),
      price: field(number),
      amount: field(number),
      quoteAmount: field(number),
      postOnly: field(fc.boolean()),
      selfTradePrevention: field(fc.constantFrom(...STP_MODES, 'none')),
      clientOrderId: field(fc.oneof(fc.constant(null), fc.string({ maxLength: 66 }))),
      colour: fc.option(fc.constant('red'), { nil: undefined, freq: 10 }),
    },
    { requiredKeys: [] },
  )
  // JSON has no undefined: a missing field is an absent key
  .map((b) => JSON.parse(JSON.stringify(b)) as Record<string, unknown>);

const positive = fc.oneof(fc.constantFrom(1e-9, 0.001, 50_000.25, Number.MAX_SAFE_INTEGER), fc.double({ min: 1e-12, max: 1e12, noNaN: true }));
/** Orders that are valid, or one field away from it: the shortcut's own ground. */
const nearlyValid = fc
  .record({
    side: fc.constantFrom('buy', 'sell'),
    type: fc.constantFrom('limit', 'market'),
    price: positive,
    amount: positive,
    quoteAmount: positive,
    nulls: fc.boolean(),
    extra: fc.record(
      {
        postOnly: fc.boolean(),
        selfTradePrevention: fc.constantFrom(...STP_MODES),
        clientOrderId: fc.oneof(fc.constant(null), fc.string({ minLength: 1, maxLength: 64 })),
      },
      { requiredKeys: [] },
    ),
    spoil: fc.option(fc.tuple(fc.constantFrom('currencyPairCode', 'side', 'type', 'price', 'amount', 'quoteAmount', 'postOnly', 'clientOrderId'), anything), { nil: undefined }),
  })
  .map(({ side, type, price, amount, quoteAmount, nulls, extra, spoil }) => {
    const b: Record<string, unknown> = { currencyPairCode: 'BTC_USDT', side, type, ...extra };
    if (type === 'limit') Object.assign(b, { price, amount }, nulls ? { quoteAmount: null } : {});
    else if (side === 'buy') Object.assign(b, { quoteAmount }, nulls ? { amount: null, price: 0 } : {});
    else Object.assign(b, { amount }, nulls ? { quoteAmount: null, price: null } : {});
    if (spoil) b[spoil[0]] = spoil[1];
    return JSON.parse(JSON.stringify(b)) as Record<string, unknown>;
  });

describe('plainSpotOrder against placeSpotOrderSchema', () => {
  it('answers only for bodies joi accepts, with joi value', () => {
    let answered = 0;
    fc.assert(
      fc.property(fc.oneof(body, nearlyValid), (b) => {
        const fast = plainSpotOrder(b);
        const { error, value } = joi(b);
        if (fast === undefined) return;
        answered++;
        expect(error?.message).toBeUndefined();
        expect(fast).toEqual(value);
      }),
      { numRuns: 5000 },
    );
    // the shortcut is taken for a share of the drawn bodies, not never
    expect(answered).toBeGreaterThan(500);
  });

  it.each([
    { currencyPairCode: 'BTC_USDT', side: 'buy', type: 'limit', price: 50_000.5, amount: 0.001 },
    { currencyPairCode: 'BTC_USDT', side: 'sell', type: 'limit', price: 1, amount: 2, postOnly: true, selfTradePrevention: 'EXPIRE_TAKER', clientOrderId: 'a' },
    { currencyPairCode: 'BTC_USDT', side: 'buy', type: 'market', quoteAmount: 10, price: null, amount: null },
    { currencyPairCode: 'BTC_USDT', side: 'sell', type: 'market', amount: 3, price: 0, clientOrderId: null },
  ])('takes the common valid body %j, with the defaults joi adds', (b) => {
    const { error, value } = joi(b);
    expect(error).toBeUndefined();
    expect(plainSpotOrder(b)).toEqual(value);
  });

  it.each([null, [], 'x', 3, { __proto__: null, side: 'buy' }, JSON.parse('{"__proto__": {}, "side": "buy"}')])('leaves %j to joi', (b) => {
    expect(plainSpotOrder(b)).toBeUndefined();
  });
});
