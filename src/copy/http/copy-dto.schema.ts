import Joi from 'joi';
import { futuresOrderDtoSchema, futuresUserDealDtoSchema } from '../../futures';
import { dtoSchema, integer, isoTimestamp, pagedSchema } from '../../platform/http/response.schema';
import type { CopySettingsDto } from '../copy-slave.service';
import type { CopyFollowingHistoryDto, CopyMasterAccountDto, CopySlaveAccountDto, SlaveAnalyticsDto } from '../copy-views';

/** Response bodies of the copy-trading routes (docs/api-contract.md#resources), for the API reference. */

const dailyPnl = () =>
  Joi.object()
    .pattern(Joi.string(), Joi.number())
    .description('pnl per day: {"YYYY-MM-DD": number}');

const currencyAnalytics = () =>
  Joi.object()
    .pattern(
      Joi.string(),
      dtoSchema(
        'PairAnalytics',
        Joi.object({ trades: integer().min(0), pnl: Joi.number(), volume: Joi.number().description('Quote notional') }),
      ),
    )
    .description('Per pair: {"<pair>": {trades, pnl, volume}}');

/** OpenAPI `CopyMasterAccount`, plus currencyAnalytics (docs/copy-trading.md). */
export const copyMasterDtoSchema = dtoSchema(
  'CopyMasterAccount',
  Joi.object<CopyMasterAccountDto, true>({
    id: integer(),
    avatarBlobId: Joi.string().guid().allow(null),
    risk: Joi.number().min(1).max(10).description('1-10, from the max drawdown'),
    rank: Joi.number().description('Place on the leaderboard (ROI) among open strategies; 0 when closed'),
    name: Joi.string(),
    strategyName: Joi.string(),
    strategyDescription: Joi.string().allow(''),
    futuresAccountId: integer(),
    futuresAccountName: Joi.string(),
    leverage: Joi.number(),
    currencyCode: Joi.string(),
    slaveIncomePercentage: Joi.number().description("The master's share of followers' realized profit, %"),
    commissionRate: Joi.number().description('Management fee, % a year of the margin'),
    hashtags: Joi.array().items(Joi.string()).description('The #words of strategyDescription'),
    socialAUrl: Joi.string().allow(null).description('Social link given at creation'),
    socialBUrl: Joi.string().allow(null),
    socialCUrl: Joi.string().allow(null),
    socialDUrl: Joi.string().allow(null),
    createdAt: isoTimestamp(),
    closedAt: isoTimestamp().allow(null).description('null while the strategy is open'),
    totalPnl: Joi.number(),
    totalPnlPercent: Joi.number(),
    todayPnlPercent: Joi.number(),
    followersEquity: Joi.number().description('Assets under management'),
    subscribersCount: integer(),
    status: Joi.string().valid('Active', 'Closed'),
    globalRank: Joi.number().description('Place by total pnl among all masters'),
    tradingDays: integer(),
    totalTrades: integer(),
    maxDrawdownPercent: Joi.number(),
    balance: Joi.number(),
    equity: Joi.number(),
    usedMargin: Joi.number(),
    totalCommissions: Joi.number(),
    totalProfitShared: Joi.number(),
    dailyPnl: dailyPnl(),
    currencyAnalytics: currencyAnalytics(),
  }),
);

/** OpenAPI `CopySlaveAccount` */
export const copySlaveDtoSchema = dtoSchema(
  'CopySlaveAccount',
  Joi.object<CopySlaveAccountDto, true>({
    id: integer(),
    futuresAccountId: integer(),
    leverage: Joi.number(),
    currencyCode: Joi.string(),
    name: Joi.string(),
    futuresAccountName: Joi.string(),
    openPositionsCount: integer(),
    activeSubscriptionsCount: integer(),
  }),
);

/** OpenAPI `CopyFollowingHistory` */
export const copyFollowingDtoSchema = dtoSchema(
  'CopyFollowingHistory',
  Joi.object<CopyFollowingHistoryDto, true>({
    id: integer(),
    masterName: Joi.string(),
    avatarBlobId: Joi.string().guid().allow(null),
    masterFuturesAccountId: integer(),
    copySlaveFuturesAccountId: integer(),
    currencyCode: Joi.string(),
    totalProfit: Joi.number(),
    totalProfitPercent: Joi.number(),
    openingDate: isoTimestamp(),
    closingDate: isoTimestamp().allow(null).description('null while active'),
    initialEquity: Joi.number(),
    settledEquity: Joi.number(),
    commission: Joi.number(),
    reason: Joi.string().allow(null).description('Why it finished (SLAVE_FINISHED, MASTER_CLOSED, STOP_LOSS, TAKE_PROFIT); null while active'),
    isActive: Joi.boolean(),
  }),
);

/** OpenAPI `CopySettings` */
export const copySettingsDtoSchema = dtoSchema(
  'CopySettings',
  Joi.object<CopySettingsDto, true>({
    copyMasterFuturesAccountId: integer(),
    copySlaveFuturesAccountId: integer(),
    margin: Joi.number().description('Equity dedicated to the subscription'),
    stopLossPercent: Joi.number().allow(null).description('Finish (closing positions) when equity falls this % of the margin'),
    takeProfitPercent: Joi.number().allow(null).description('Finish (closing positions) when equity rises this % of the margin'),
    maxSlippagePercent: Joi.number().description("Worst price of a follower order, % off the master's fill price (default 0.5)"),
  }),
);

/** OpenAPI `SlaveAnalytics` */
export const slaveAnalyticsDtoSchema = dtoSchema(
  'SlaveAnalytics',
  Joi.object<SlaveAnalyticsDto, true>({
    copySlaveFuturesAccountId: integer(),
    copyMasterFuturesAccountId: integer(),
    masterName: Joi.string(),
    currencyCode: Joi.string(),
    createTimestamp: isoTimestamp(),
    deactivatedAt: isoTimestamp().allow(null),
    isActive: Joi.boolean(),
    deactivationReason: Joi.string().allow(null),
    initialEquity: Joi.number(),
    totalSlaveProfit: Joi.number(),
    copyMasterProfit: Joi.number(),
    currentPeriodSlaveProfit: Joi.number(),
    totalPnl: Joi.number(),
    totalPnlPercent: Joi.number(),
    unrealizedPnl: Joi.number(),
    totalCommissions: Joi.number(),
    totalFunding: Joi.number(),
    tradingDays: integer(),
    totalTrades: integer(),
    dailyPnl: dailyPnl(),
    currencyAnalytics: currencyAnalytics(),
  }),
);

export const pagedMastersDtoSchema = pagedSchema('CopyMasterAccounts', copyMasterDtoSchema);
export const pagedFollowingDtoSchema = pagedSchema('CopyFollowingHistory', copyFollowingDtoSchema);
/** PositionDto, OrderDto and TradeDto (docs/api-contract.md#resources): PositionDto and OrderDto are the futures record of `FuturesOrder`, TradeDto the user deal of `FuturesUserDeal`. */
export const pagedPositionsDtoSchema = pagedSchema('FuturesOrders', futuresOrderDtoSchema);
export const pagedTradesDtoSchema = pagedSchema('FuturesUserDeals', futuresUserDealDtoSchema);

/** A master fill a subscription did not mirror, with the reason (an extension, docs/copy-trading.md). */
export const copySkipDtoSchema = dtoSchema(
  'CopySkip',
  Joi.object({
    masterOrderId: integer(),
    tradeId: integer().allow(null).description('The master fill (trade id of the pair); null for a skip about the whole order (a close)'),
    reason: Joi.string().description('BELOW_PAIR_MINIMUM, NO_MARGIN, SLIPPAGE (the immediate-or-cancel order found nothing within maxSlippagePercent), MASTER_POSITION_CLOSED, or the engine\'s code'),
    timestamp: isoTimestamp(),
  }),
);
