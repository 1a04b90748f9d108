import { Router, type RequestHandler } from 'express';
import type { AppContext } from '../../transport/context';
import type { PageRequest } from '../../domain/paging';
import type { HistoryQuery } from '../copy-history.service';
import type { CreateMasterRequest, MasterFilter } from '../copy-master.service';
import { principal } from '../../transport/http/middleware/auth';
import { valid, validate } from '../../platform/http/validate';
import {
  createMasterSchema, historyQuery, masterParams, ownMastersQuery, positionsQuery, publicMastersQuery,
} from './copy.schema';

/** SPEC 4.1. Public (SPEC 5.1): public-masters, analytics, positions, positions-history, trades. */
export function copyMasterRoutes(ctx: AppContext, auth: RequestHandler): Router {
  const r = Router();
  const base = '/api/copy-master';
  const one = `${base}/:copyMasterFuturesAccountId`;
  const masterId = (res: Parameters<RequestHandler>[1]) =>
    valid<{ copyMasterFuturesAccountId: number }>(res, 'params').copyMasterFuturesAccountId;
  /** The master's futures account, once the master is known to exist (404 otherwise). */
  const account = async (res: Parameters<RequestHandler>[1]) => [(await ctx.copyMasters.existing(masterId(res))).id];

  r.post(base, auth, validate({ body: createMasterSchema }), async (req, res) => {
    res.json(await ctx.copyMasters.create(principal(req).userId, valid<CreateMasterRequest>(res, 'body')));
  });
  r.get(base, auth, validate({ query: ownMastersQuery }), async (req, res) => {
    res.json(await ctx.copyMasters.listOwn(principal(req).userId, valid<MasterFilter>(res, 'query')));
  });
  r.get(`${base}/public-masters`, validate({ query: publicMastersQuery }), async (_req, res) => {
    const q = valid<MasterFilter & PageRequest>(res, 'query');
    res.json(await ctx.copyMasters.leaderboard(q, q));
  });
  r.get(`${one}/analytics`, validate({ params: masterParams }), async (_req, res) => {
    res.json(await ctx.copyMasters.analytics(masterId(res)));
  });
  r.get(`${one}/positions`, validate({ params: masterParams, query: positionsQuery }), async (_req, res) => {
    res.json(await ctx.copyHistory.positions(await account(res), valid<PageRequest>(res, 'query')));
  });
  r.get(`${one}/positions-history`, validate({ params: masterParams, query: historyQuery }), async (_req, res) => {
    res.json(await ctx.copyHistory.positionsHistory(await account(res), valid<HistoryQuery>(res, 'query')));
  });
  r.get(`${one}/trades`, validate({ params: masterParams, query: historyQuery }), async (_req, res) => {
    res.json(await ctx.copyHistory.trades(await account(res), valid<HistoryQuery>(res, 'query')));
  });
  r.get(`${one}/slaves`, auth, validate({ params: masterParams }), async (req, res) => {
    res.json(await ctx.copyMasters.slaves(principal(req).userId, masterId(res)));
  });
  r.delete(one, auth, validate({ params: masterParams }), async (req, res) => {
    res.json(await ctx.copyMasters.close(principal(req).userId, masterId(res)));
  });
  return r;
}
