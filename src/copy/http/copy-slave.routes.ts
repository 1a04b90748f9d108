import { Router, type RequestHandler, type Response } from 'express';
import type { PageRequest } from '../../domain/paging';
import type { CopyHistoryService, HistoryQuery } from '../copy-history.service';
import type { CopySettingsRequest, CopySlaveService, CreateSlaveRequest, FinishCopyRequest } from '../copy-slave.service';
import { principal } from '../../platform/http/principal';
import { valid, validate } from '../../platform/http/validate';
import {
  copySettingsSchema, createSlaveSchema, finishCopySchema, followingQuery, historyQuery, idParams, positionsQuery,
  slaveMasterParams, slaveParams, subscriptionsQuery,
} from './copy.schema';

type SlaveParams = { copySlaveId: number; copyMasterId?: number };

/** SPEC 4.2; every endpoint needs the token, and another user's slave is a 404. */
export function copySlaveRoutes(
  copy: { slaves: CopySlaveService; history: CopyHistoryService },
  auth: RequestHandler,
): Router {
  const r = Router();
  const base = '/api/copy-slave';
  const one = `${base}/:copySlaveId`;
  const pair = `${one}/:copyMasterId`;
  const user = (req: Parameters<RequestHandler>[0]) => principal(req).userId;
  /** The futures accounts of the slave's subscriptions, all of them or those copying one master. */
  const accounts = async (req: Parameters<RequestHandler>[0], res: Response) => {
    const p = valid<SlaveParams>(res, 'params');
    return (await copy.slaves.subscriptionsTo(user(req), p.copySlaveId, p.copyMasterId)).map((s) => s.acct);
  };

  r.post(base, auth, validate({ body: createSlaveSchema }), async (req, res) => {
    res.json(await copy.slaves.create(user(req), valid<CreateSlaveRequest>(res, 'body')));
  });
  r.get(base, auth, async (req, res) => {
    res.json(await copy.slaves.list(user(req)));
  });
  r.get(`${base}/following`, auth, validate({ query: followingQuery }), async (req, res) => {
    const q = valid<{ onlyHistory: boolean } & PageRequest>(res, 'query');
    res.json(await copy.slaves.following(user(req), q.onlyHistory, q));
  });
  r.post(`${base}/startMasterCopy`, auth, validate({ body: copySettingsSchema }), async (req, res) => {
    res.json(await copy.slaves.start(user(req), valid<CopySettingsRequest>(res, 'body')));
  });
  r.post(`${base}/updateMasterCopySettings`, auth, validate({ body: copySettingsSchema }), async (req, res) => {
    res.json(await copy.slaves.update(user(req), valid<CopySettingsRequest>(res, 'body')));
  });
  r.post(`${base}/finishMasterCopy`, auth, validate({ body: finishCopySchema }), async (req, res) => {
    res.json(await copy.slaves.finish(user(req), valid<FinishCopyRequest>(res, 'body')));
  });
  r.get(`${one}/subscriptions`, auth, validate({ params: slaveParams, query: subscriptionsQuery }), async (req, res) => {
    const q = valid<{ active: boolean } & PageRequest>(res, 'query');
    res.json(await copy.slaves.subscriptions(user(req), valid<SlaveParams>(res, 'params').copySlaveId, q.active, q));
  });
  for (const [path, params] of [[one, slaveParams], [pair, slaveMasterParams]] as const) {
    r.get(`${path}/positions`, auth, validate({ params, query: positionsQuery }), async (req, res) => {
      res.json(await copy.history.positions(await accounts(req, res), valid<PageRequest>(res, 'query')));
    });
    r.get(`${path}/trades`, auth, validate({ params, query: historyQuery }), async (req, res) => {
      res.json(await copy.history.trades(await accounts(req, res), valid<HistoryQuery>(res, 'query')));
    });
    r.get(`${path}/positions-history`, auth, validate({ params, query: historyQuery }), async (req, res) => {
      res.json(await copy.history.positionsHistory(await accounts(req, res), valid<HistoryQuery>(res, 'query')));
    });
  }
  r.get(`${pair}/settings`, auth, validate({ params: slaveMasterParams }), async (req, res) => {
    const p = valid<Required<SlaveParams>>(res, 'params');
    res.json(await copy.slaves.settings(user(req), p.copySlaveId, p.copyMasterId));
  });
  r.get(`${pair}/analytics`, auth, validate({ params: slaveMasterParams }), async (req, res) => {
    const p = valid<Required<SlaveParams>>(res, 'params');
    res.json(await copy.slaves.analytics(user(req), p.copySlaveId, p.copyMasterId));
  });
  r.delete(`${base}/:id`, auth, validate({ params: idParams }), async (req, res) => {
    res.json(await copy.slaves.delete(user(req), valid<{ id: number }>(res, 'params').id));
  });
  return r;
}
