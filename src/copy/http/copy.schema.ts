import Joi from 'joi';
import { CURRENCY_CODE } from '../../domain/market';
import { SORT_PRESETS } from '../copy-master.service';
import { pageSchema, positive } from '../../platform/http/common.schema';

const id = Joi.number().integer().min(1).max(Number.MAX_SAFE_INTEGER);
const percentage = Joi.number().min(0).max(100);
const url = Joi.string().uri({ scheme: ['http', 'https'] }).max(512).allow('', null);
const leverage = Joi.number().integer().min(1).max(1000);
const currencyCode = Joi.string().pattern(CURRENCY_CODE);

/** The copy master request (OpenAPI); strategyDescription and the social links are optional. */
export const createMasterSchema = Joi.object({
  name: Joi.string().trim().min(1).max(64).required(),
  strategyName: Joi.string().trim().min(1).max(64).required(),
  strategyDescription: Joi.string().max(4000).allow(''),
  leverage: leverage.required(),
  currencyCode: currencyCode.required(),
  slaveIncomePercentage: percentage.required(),
  commissionRate: percentage.required(),
  amount: positive().required(),
  socialAUrl: url,
  socialBUrl: url,
  socialCUrl: url,
  socialDUrl: url,
});

/** The copy slave request (OpenAPI) */
export const createSlaveSchema = Joi.object({
  name: Joi.string().trim().min(1).max(64).required(),
  leverage: leverage.required(),
  currencyCode: currencyCode.required(),
});

/** Follower risk controls (docs/copy-trading.md), optional; null clears one on update. */
const riskControls = {
  stopLossPercent: Joi.number().greater(0).max(100).allow(null),
  takeProfitPercent: Joi.number().greater(0).max(100_000).allow(null),
  maxSlippagePercent: Joi.number().min(0).max(50).allow(null),
};

export const copySettingsSchema = Joi.object({
  copyMasterFuturesAccountId: id.required(),
  copySlaveFuturesAccountId: id.required(),
  margin: positive().required(),
  ...riskControls,
});

export const finishCopySchema = Joi.object({
  copyMasterFuturesAccountId: id.required(),
  copySlaveFuturesAccountId: id.required(),
  closeOrders: Joi.boolean().default(false),
});

const filters = {
  roiFrom: Joi.number(),
  roiTo: Joi.number(),
  followersFrom: Joi.number().integer().min(0),
  followersTo: Joi.number().integer().min(0),
  daysFrom: Joi.number().integer().min(0),
  daysTo: Joi.number().integer().min(0),
  aumFrom: Joi.number(),
  aumTo: Joi.number(),
  sortPreset: Joi.string().valid(...SORT_PRESETS).default('roi'),
};

/** GET /api/copy-master: the copy master routes (docs/copy-trading.md) names no drawdown range and no paging here. */
export const ownMastersQuery = Joi.object({ onlyClosed: Joi.boolean().default(false), ...filters });

/** The leaderboard: 10 a page by default, at most 100 (docs/copy-trading.md). */
export const publicMastersQuery = Joi.object({
  ...pageSchema(10, 100),
  ...filters,
  drawdownFrom: Joi.number(),
  drawdownTo: Joi.number(),
});

export const positionsQuery = Joi.object(pageSchema(100));

export const historyQuery = Joi.object({
  ...pageSchema(100),
  sortBy: Joi.string().valid('date', 'pnl', 'roi').default('date'),
  sortDir: Joi.string().valid('asc', 'desc').default('desc'),
  side: Joi.string().valid('long', 'short'),
  roiFrom: Joi.number(),
  roiTo: Joi.number(),
  dateFrom: Joi.date().iso(),
  dateTo: Joi.date().iso(),
});

export const followingQuery = Joi.object({ onlyHistory: Joi.boolean().default(false), ...pageSchema(10) });
export const subscriptionsQuery = Joi.object({ active: Joi.boolean().default(true), ...pageSchema(10) });

export const masterParams = Joi.object({ copyMasterFuturesAccountId: id.required() });
export const slaveParams = Joi.object({ copySlaveId: id.required() });
export const slaveMasterParams = Joi.object({ copySlaveId: id.required(), copyMasterId: id.required() });
export const idParams = Joi.object({ id: id.required() });
