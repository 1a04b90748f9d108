import { Router, type RequestHandler } from 'express';
import Joi from 'joi';
import type { PageRequest } from '../../domain/paging';
import type { CopyHistoryService, HistoryQuery } from '../copy-history.service';
import type { CopyMasterService, CreateMasterRequest, MasterFilter } from '../copy-master.service';
import { principal } from '../../platform/http/principal';
import { routeDocs } from '../../platform/http/route-doc';
import { valid, validate } from '../../platform/http/validate';
import {
  createMasterSchema, historyQuery, masterParams, ownMastersQuery, positionsQuery, publicMastersQuery,
} from './copy.schema';
import {
  copyMasterDtoSchema, copySlaveDtoSchema, pagedMastersDtoSchema, pagedPositionsDtoSchema, pagedTradesDtoSchema,
} from './copy-dto.schema';

const doc = routeDocs('Copy trading: masters');

/** The copy master routes (docs/copy-trading.md). Public (docs/api-contract.md#tokens-and-public-routes): public-masters, analytics, positions, positions-history, trades. */
export function copyMasterRoutes(
  copy: { masters: CopyMasterService; history: CopyHistoryService },
  auth: RequestHandler,
): Router {
  const r = Router();
  const base = '/api/copy-master';
  const one = `${base}/:copyMasterFuturesAccountId`;
  const masterId = (res: Parameters<RequestHandler>[1]) =>
    valid<{ copyMasterFuturesAccountId: number }>(res, 'params').copyMasterFuturesAccountId;
  /** The master's futures account, once the master is known to exist (404 otherwise). */
  const account = async (res: Parameters<RequestHandler>[1]) => [(await copy.masters.existing(masterId(res))).id];

  const createDoc = doc({
    summary: 'Publish a strategy: a new futures account funded with amount from the wallet',
    description: 'Not enough in the wallet, or a margin currency no futures pair settles in, is a 422.',
    response: copyMasterDtoSchema,
    errors: [422],
  });
  r.post(base, createDoc, auth, validate({ body: createMasterSchema }), async (req, res) => {
    res.json(await copy.masters.create(principal(req).userId, valid<CreateMasterRequest>(res, 'body')));
  });
  const ownDoc = doc({
    summary: "The caller's strategies, open ones or with onlyClosed the closed ones",
    response: Joi.array().items(copyMasterDtoSchema),
  });
  r.get(base, ownDoc, auth, validate({ query: ownMastersQuery }), async (req, res) => {
    res.json(await copy.masters.listOwn(principal(req).userId, valid<MasterFilter>(res, 'query')));
  });
  const leaderboardDoc = doc({
    summary: 'The public leaderboard of open strategies',
    description: 'sortPreset: roi (default), pnl, followers, aum, drawdown (ascending), tradingDays, newest.',
    response: pagedMastersDtoSchema,
  });
  r.get(`${base}/public-masters`, leaderboardDoc, validate({ query: publicMastersQuery }), async (_req, res) => {
    const q = valid<MasterFilter & PageRequest>(res, 'query');
    res.json(await copy.masters.leaderboard(q, q));
  });
  const analyticsDoc = doc({ summary: "A master's full public profile", response: copyMasterDtoSchema, errors: [404] });
  r.get(`${one}/analytics`, analyticsDoc, validate({ params: masterParams }), async (_req, res) => {
    res.json(await copy.masters.analytics(masterId(res)));
  });
  const positionsDoc = doc({ summary: "A master's open positions", response: pagedPositionsDtoSchema, errors: [404] });
  r.get(`${one}/positions`, positionsDoc, validate({ params: masterParams, query: positionsQuery }), async (_req, res) => {
    res.json(await copy.history.positions(await account(res), valid<PageRequest>(res, 'query')));
  });
  const historyDoc = doc({ summary: "A master's closed positions", response: pagedPositionsDtoSchema, errors: [404] });
  r.get(`${one}/positions-history`, historyDoc, validate({ params: masterParams, query: historyQuery }), async (_req, res) => {
    res.json(await copy.history.positionsHistory(await account(res), valid<HistoryQuery>(res, 'query')));
  });
  const tradesDoc = doc({ summary: "A master's trades (fills)", response: pagedTradesDtoSchema, errors: [404] });
  r.get(`${one}/trades`, tradesDoc, validate({ params: masterParams, query: historyQuery }), async (_req, res) => {
    res.json(await copy.history.trades(await account(res), valid<HistoryQuery>(res, 'query')));
  });
  const slavesDoc = doc({
    summary: 'The followers copying a master now: for its owner only',
    response: Joi.array().items(copySlaveDtoSchema),
    errors: [403, 404],
  });
  r.get(`${one}/slaves`, slavesDoc, auth, validate({ params: masterParams }), async (req, res) => {
    res.json(await copy.masters.slaves(principal(req).userId, masterId(res)));
  });
  const closeDoc = doc({
    summary: 'Close a strategy; answers its final profile',
    description:
      'Its positions close at market, every subscription finishes (MASTER_CLOSED) with the mirrored positions closed, the equity returns to the wallet and closedAt is set; the record stays readable (onlyClosed). Closing twice is a 409.',
    response: copyMasterDtoSchema,
    errors: [403, 404, 409],
  });
  r.delete(one, closeDoc, auth, validate({ params: masterParams }), async (req, res) => {
    res.json(await copy.masters.close(principal(req).userId, masterId(res)));
  });
  return r;
}
