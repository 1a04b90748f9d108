import Joi from 'joi';
import { FUTURES_STATUSES, OrderSide, TradeType } from '../../domain/futures';
import { bookLevelDtoSchema } from '../../market-data';
import { dtoSchema, integer, isoTimestamp } from '../../platform/http/response.schema';
import { balanceDtoSchema, type BalanceDto } from '../../wallet';
import type { FuturesAccountDto } from '../futures-account.service';
import type { FuturesBookDto, FuturesDealDto, FuturesPairInfoDto, FuturesUserDealDto } from '../futures-market.service';
import type { FuturesOrderDto } from '../futures-order-dto';

/** Response bodies of the futures routes (docs/api-contract.md#resources), for the API reference. */
export const futuresAccountDtoSchema = dtoSchema(
  'FuturesAccount',
  Joi.object<FuturesAccountDto, true>({
    id: integer(),
    name: Joi.string(),
    currencyCode: Joi.string().description('The margin currency'),
    leverage: integer(),
    balance: Joi.number().description('available + usedMargin'),
    available: Joi.number(),
    usedMargin: Joi.number(),
    equity: Joi.number().description('balance + unrealized pnl at the mark price'),
  }),
);

export const transferResultDtoSchema = dtoSchema(
  'TransferResult',
  Joi.object<{ accounts: FuturesAccountDto[]; wallet: BalanceDto[] }, true>({
    accounts: Joi.array().items(futuresAccountDtoSchema).description("The caller's futures accounts afterwards"),
    wallet: Joi.array().items(balanceDtoSchema).description("The caller's wallet afterwards"),
  }),
);

export const createdFuturesOrderDtoSchema = dtoSchema(
  'CreatedFuturesOrder',
  Joi.object<{ id: number; clientOrderId: string | null }, true>({ id: integer(), clientOrderId: Joi.string().allow(null) }),
);

const price = () => Joi.number().description('0 when unset');

/** OpenAPI `FuturesOrder` */
export const futuresOrderDtoSchema = dtoSchema(
  'FuturesOrder',
  Joi.object<FuturesOrderDto, true>({
    id: integer(),
    clientOrderId: Joi.string().allow(null),
    createTimestamp: isoTimestamp(),
    updateTimestamp: isoTimestamp(),
    price: Joi.number().description('Average entry once anything filled, else the limit price (0 for a market order)'),
    amount: Joi.number(),
    currencyPairCode: Joi.string(),
    takeProfit: price(),
    stopLoss: price(),
    realizedPnl: Joi.number(),
    leverage: integer(),
    isLong: Joi.boolean(),
    isMarket: Joi.boolean(),
    liquidationPrice: price(),
    filled: Joi.number(),
    fee: Joi.number(),
    feeAsset: Joi.string(),
    amountInPosition: Joi.number(),
    futuresOrderStatus: integer()
      .valid(...FUTURES_STATUSES)
      .description('Created 10, PositionClosed 20, Cancelled 30, Error 40, InPosition 50 (docs/api-contract.md#resources)'),
    fundingFee: Joi.number(),
    initialMargin: Joi.number(),
    currentMargin: Joi.number(),
    unRealizedPnl: Joi.number(),
    unRealizedPnlPercentage: Joi.number(),
    totalPnlPercentage: Joi.number(),
    roe: Joi.number(),
    adlQuantile: integer().min(0).max(4).description('Extension of OpenAPI `FuturesOrder`: 0-4, where the position stands in its side\'s auto-deleveraging queue (4 = the top fifth, deleveraged first); 0 when not in position'),
    markPrice: Joi.number().allow(null).description('Extension of OpenAPI `FuturesOrder`: the mark price the unrealized pnl is valued at (null before the market has one)'),
  }),
);

export const futuresBookDtoSchema = dtoSchema(
  'FuturesOrderBook',
  Joi.object<FuturesBookDto, true>({
    currencyPairCode: Joi.string(),
    asks: Joi.array().items(bookLevelDtoSchema).description('Best (lowest) first'),
    bids: Joi.array().items(bookLevelDtoSchema).description('Best (highest) first'),
  }),
);

/** OpenAPI `FuturesPairInfo`, with the Cyrillic first letter of `сurrencyPairCode` as the contract spells it (docs/api-contract.md#resources). */
export const futuresPairInfoDtoSchema = dtoSchema(
  'FuturesPairInfo',
  Joi.object<FuturesPairInfoDto, true>({
    id: integer(),
    сurrencyPairCode: Joi.string().description('The first letter is Cyrillic U+0441, as OpenAPI `FuturesPairInfo` spells it'),
    isActive: Joi.boolean(),
    basePricePrecision: integer().description("Digits of the price"),
    quantityPrecision: integer().description('Digits of the amount'),
    quotePricePrecision: integer().description("Decimals of the margin currency"),
    contractValue: Joi.number(),
    fundingRate: Joi.number().description('Rate of the funding round in progress'),
    lotSize: Joi.number(),
    fundingRateStartTimestamp: isoTimestamp(),
    fundingRateFinishTimestamp: isoTimestamp().description('When the round in progress settles'),
    makerFee: Joi.number().description('Extension: maker fee rate, a fraction (0.001 = 0.1 %)'),
    takerFee: Joi.number().description('Extension: taker fee rate, a fraction (0.001 = 0.1 %)'),
    maxLeverage: Joi.number().description('Extension: the highest leverage of the pair'),
    maintenanceMarginRate: Joi.number().description('Extension: maintenance margin rate, a fraction of the notional'),
  }),
);

const orderSide = () =>
  integer()
    .valid(...Object.values(OrderSide))
    .description('1 buy/long, 2 sell/short');

const dealKeys = {
  timestamp: isoTimestamp(),
  price: Joi.number(),
  amount: Joi.number(),
  currencyPairCode: Joi.string(),
  isLong: Joi.boolean(),
  orderSide: orderSide(),
};

/** OpenAPI `FuturesDeal` */
export const futuresDealDtoSchema = dtoSchema('FuturesDeal', Joi.object<FuturesDealDto, true>(dealKeys));

/** OpenAPI `FuturesUserDeal` */
export const futuresUserDealDtoSchema = dtoSchema(
  'FuturesUserDeal',
  Joi.object<FuturesUserDealDto, true>({
    id: integer(),
    ...dealKeys,
    fee: Joi.number(),
    feeAsset: Joi.string(),
    realizedPnl: Joi.number(),
    tradeType: integer()
      .valid(...Object.values(TradeType))
      .description('1 maker, 2 taker, 3 liquidation'),
    orderId: integer(),
  }),
);

export const futuresDealsDtoSchema = dtoSchema(
  'FuturesDeals',
  Joi.object<{ totalCount: number; items: FuturesDealDto[] }, true>({
    totalCount: integer().min(0),
    items: Joi.array().items(futuresDealDtoSchema),
  }),
);

export const futuresUserDealsDtoSchema = dtoSchema(
  'FuturesUserDeals',
  Joi.object<{ totalCount: number; items: FuturesUserDealDto[] }, true>({
    totalCount: integer().min(0),
    items: Joi.array().items(futuresUserDealDtoSchema),
  }),
);

export const indexPriceDtoSchema = dtoSchema(
  'IndexPrice',
  Joi.object<{ currencyPairCode: string; price: number }, true>({
    currencyPairCode: Joi.string(),
    price: Joi.number().description("As recorded, rounded down to the pair's digits"),
  }),
);
