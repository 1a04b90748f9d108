import { Router, type RequestHandler, type Response } from 'express';
import Joi from 'joi';
import type { PageRequest } from '../../domain/paging';
import type { CopyHistoryService, HistoryQuery } from '../copy-history.service';
import type { CopySettingsRequest, CopySlaveService, CreateSlaveRequest, FinishCopyRequest } from '../copy-slave.service';
import { principal } from '../../platform/http/principal';
import { routeDocs } from '../../platform/http/route-doc';
import { valid, validate } from '../../platform/http/validate';
import {
  copySettingsSchema, createSlaveSchema, finishCopySchema, followingQuery, historyQuery, idParams, positionsQuery,
  slaveMasterParams, slaveParams, subscriptionsQuery,
} from './copy.schema';
import {
  copyFollowingDtoSchema, copySettingsDtoSchema, copySkipDtoSchema, copySlaveDtoSchema, pagedFollowingDtoSchema, pagedPositionsDtoSchema,
  pagedTradesDtoSchema, slaveAnalyticsDtoSchema,
} from './copy-dto.schema';

type SlaveParams = { copySlaveId: number; copyMasterId?: number };

const doc = routeDocs('Copy trading: followers');

/** The copy slave routes (docs/copy-trading.md); every endpoint needs the token, and another user's slave is a 404. */
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

  const createDoc = doc({
    summary: 'Open a follower (slave) account: a futures account that holds the margin for copying',
    response: copySlaveDtoSchema,
    errors: [422],
  });
  r.post(base, createDoc, auth, validate({ body: createSlaveSchema }), async (req, res) => {
    res.json(await copy.slaves.create(user(req), valid<CreateSlaveRequest>(res, 'body')));
  });
  const listDoc = doc({ summary: "The caller's follower accounts", response: Joi.array().items(copySlaveDtoSchema) });
  r.get(base, listDoc, auth, async (req, res) => {
    res.json(await copy.slaves.list(user(req)));
  });
  const followingDoc = doc({
    summary: "The caller's subscriptions over all their follower accounts: current, or with onlyHistory the finished ones",
    response: pagedFollowingDtoSchema,
  });
  r.get(`${base}/following`, followingDoc, auth, validate({ query: followingQuery }), async (req, res) => {
    const q = valid<{ onlyHistory: boolean } & PageRequest>(res, 'query');
    res.json(await copy.slaves.following(user(req), q.onlyHistory, q));
  });
  const startDoc = doc({
    summary: 'Start copying a master with margin from the follower account; answers the subscription',
    description:
      'A closed master or a second active subscription to the same master is a 409; another margin currency or too little free balance a 422.',
    response: copyFollowingDtoSchema,
    errors: [404, 409, 422],
  });
  r.post(`${base}/startMasterCopy`, startDoc, auth, validate({ body: copySettingsSchema }), async (req, res) => {
    res.json(await copy.slaves.start(user(req), valid<CopySettingsRequest>(res, 'body')));
  });
  const updateDoc = doc({
    summary: "Change an active subscription's margin; answers its settings",
    description: 'The difference moves from or back to the follower account. A finished subscription is a 409.',
    response: copySettingsDtoSchema,
    errors: [404, 409, 422],
  });
  r.post(`${base}/updateMasterCopySettings`, updateDoc, auth, validate({ body: copySettingsSchema }), async (req, res) => {
    res.json(await copy.slaves.update(user(req), valid<CopySettingsRequest>(res, 'body')));
  });
  const finishDoc = doc({
    summary: 'Stop copying a master; answers the finished subscription',
    description: 'closeOrders true closes the positions mirrored from that master too. Finishing twice is a 409.',
    response: copyFollowingDtoSchema,
    errors: [404, 409],
  });
  r.post(`${base}/finishMasterCopy`, finishDoc, auth, validate({ body: finishCopySchema }), async (req, res) => {
    res.json(await copy.slaves.finish(user(req), valid<FinishCopyRequest>(res, 'body')));
  });
  const subscriptionsDoc = doc({
    summary: "A follower account's subscriptions: active, or with active=false the finished ones",
    response: pagedFollowingDtoSchema,
    errors: [404],
  });
  r.get(`${one}/subscriptions`, subscriptionsDoc, auth, validate({ params: slaveParams, query: subscriptionsQuery }), async (req, res) => {
    const q = valid<{ active: boolean } & PageRequest>(res, 'query');
    res.json(await copy.slaves.subscriptions(user(req), valid<SlaveParams>(res, 'params').copySlaveId, q.active, q));
  });
  for (const [path, params, from] of [[one, slaveParams, 'across all masters'], [pair, slaveMasterParams, 'from one master']] as const) {
    const positionsDoc = doc({ summary: `Open mirrored positions, ${from}`, response: pagedPositionsDtoSchema, errors: [404] });
    r.get(`${path}/positions`, positionsDoc, auth, validate({ params, query: positionsQuery }), async (req, res) => {
      res.json(await copy.history.positions(await accounts(req, res), valid<PageRequest>(res, 'query')));
    });
    const tradesDoc = doc({ summary: `Mirrored trades (fills), ${from}`, response: pagedTradesDtoSchema, errors: [404] });
    r.get(`${path}/trades`, tradesDoc, auth, validate({ params, query: historyQuery }), async (req, res) => {
      res.json(await copy.history.trades(await accounts(req, res), valid<HistoryQuery>(res, 'query')));
    });
    const historyDoc = doc({ summary: `Closed mirrored positions, ${from}`, response: pagedPositionsDtoSchema, errors: [404] });
    r.get(`${path}/positions-history`, historyDoc, auth, validate({ params, query: historyQuery }), async (req, res) => {
      res.json(await copy.history.positionsHistory(await accounts(req, res), valid<HistoryQuery>(res, 'query')));
    });
  }
  const settingsDoc = doc({ summary: 'Settings of one subscription (OpenAPI `CopySettings`)', response: copySettingsDtoSchema, errors: [404] });
  r.get(`${pair}/settings`, settingsDoc, auth, validate({ params: slaveMasterParams }), async (req, res) => {
    const p = valid<Required<SlaveParams>>(res, 'params');
    res.json(await copy.slaves.settings(user(req), p.copySlaveId, p.copyMasterId));
  });
  const analyticsDoc = doc({ summary: 'Analytics of one subscription (OpenAPI `SlaveAnalytics`)', response: slaveAnalyticsDtoSchema, errors: [404] });
  r.get(`${pair}/analytics`, analyticsDoc, auth, validate({ params: slaveMasterParams }), async (req, res) => {
    const p = valid<Required<SlaveParams>>(res, 'params');
    res.json(await copy.slaves.analytics(user(req), p.copySlaveId, p.copyMasterId));
  });
  const skipsDoc = doc({
    summary: 'Master fills the subscription did not mirror, with the reason of each (an extension, docs/copy-trading.md)',
    description: 'The active subscription of the follower account to the master, else its latest one.',
    response: Joi.array().items(copySkipDtoSchema),
    errors: [404],
  });
  r.get(`${pair}/skips`, skipsDoc, auth, validate({ params: slaveMasterParams }), async (req, res) => {
    const p = valid<Required<SlaveParams>>(res, 'params');
    res.json(await copy.slaves.skips(user(req), p.copySlaveId, p.copyMasterId));
  });
  const deleteDoc = doc({
    summary: 'Delete a follower account; its free balance returns to the wallet',
    description: 'Refused (409) while a subscription is active.',
    response: copySlaveDtoSchema,
    errors: [404, 409],
  });
  r.delete(`${base}/:id`, deleteDoc, auth, validate({ params: idParams }), async (req, res) => {
    res.json(await copy.slaves.delete(user(req), valid<{ id: number }>(res, 'params').id));
  });
  return r;
}
