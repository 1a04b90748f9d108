import { Router, type RequestHandler } from 'express';
import type { PageRequest } from '../../domain/paging';
import type { CopyHistoryService, HistoryQuery } from '../copy-history.service';
import type { CopyMasterService, CreateMasterRequest, MasterFilter } from '../copy-master.service';
import { principal } from '../../platform/http/principal';
import { valid, validate } from '../../platform/http/validate';
import {
  createMasterSchema, historyQuery, masterParams, ownMastersQuery, positionsQuery, publicMastersQuery,
} from './copy.schema';

/** SPEC 4.1. Public (SPEC 5.1): public-masters, analytics, positions, positions-history, trades. */
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

  r.post(base, auth, validate({ body: createMasterSchema }), async (req, res) => {
    res.json(await copy.masters.create(principal(req).userId, valid<CreateMasterRequest>(res, 'body')));
  });
  r.get(base, auth, validate({ query: ownMastersQuery }), async (req, res) => {
    res.json(await copy.masters.listOwn(principal(req).userId, valid<MasterFilter>(res, 'query')));
  });
  r.get(`${base}/public-masters`, validate({ query: publicMastersQuery }), async (_req, res) => {
    const q = valid<MasterFilter & PageRequest>(res, 'query');
    res.json(await copy.masters.leaderboard(q, q));
  });
  r.get(`${one}/analytics`, validate({ params: masterParams }), async (_req, res) => {
    res.json(await copy.masters.analytics(masterId(res)));
  });
  r.get(`${one}/positions`, validate({ params: masterParams, query: positionsQuery }), async (_req, res) => {
    res.json(await copy.history.positions(await account(res), valid<PageRequest>(res, 'query')));
  });
  r.get(`${one}/positions-history`, validate({ params: masterParams, query: historyQuery }), async (_req, res) => {
    res.json(await copy.history.positionsHistory(await account(res), valid<HistoryQuery>(res, 'query')));
  });
  r.get(`${one}/trades`, validate({ params: masterParams, query: historyQuery }), async (_req, res) => {
    res.json(await copy.history.trades(await account(res), valid<HistoryQuery>(res, 'query')));
  });
  r.get(`${one}/slaves`, auth, validate({ params: masterParams }), async (req, res) => {
    res.json(await copy.masters.slaves(principal(req).userId, masterId(res)));
  });
  r.delete(one, auth, validate({ params: masterParams }), async (req, res) => {
    res.json(await copy.masters.close(principal(req).userId, masterId(res)));
  });
  return r;
}
