import { Router, type RequestHandler } from 'express';
import Joi from 'joi';
import { principal } from '../../platform/http/principal';
import { routeDocs } from '../../platform/http/route-doc';
import { valid, validate } from '../../platform/http/validate';
import { cancelAllQuery, listSpotOrdersQuery, orderIdParams, placeSpotOrderSchema, plainSpotOrder, userTradesQuery } from './spot-order.schema';
import { cancelledOrdersDtoSchema, pagedSpotOrdersDtoSchema, spotOrderDtoSchema, spotUserTradeDtoSchema } from './spot-dto.schema';
import type { SpotUserTrades, SpotUserTradesQuery } from '../spot-user-trades';
import type { PlaceSpotRequest, SpotOrderQuery, SpotOrderService } from '../spot-order.service';

const doc = routeDocs('Spot orders');

/** Spot orders (docs/spot.md, docs/api-contract.md#order-book-rules): one order per request, no batch endpoints. */
export function spotOrderRoutes(
  spot: { orders: SpotOrderService; userTrades: SpotUserTrades },
  auth: RequestHandler,
  limit: RequestHandler,
): Router {
  const r = Router();
  const placeDoc = doc({
    summary: 'Place a spot order; answers it as it stands after matching',
    description:
      'A limit buy reserves price × amount of quote, a sell the amount of base, a market buy its quoteAmount; a market order fills until that is used up and the rest is killed (order-book rule 4, docs/api-contract.md#order-book-rules). Prices and amounts are rounded down to the pair\'s digits. A post-only order that would take, too little balance or an amount below the pair minimum is a 422 and leaves nothing behind. Repeating a clientOrderId answers the original order and places nothing.',
    response: spotOrderDtoSchema,
    errors: [422],
  });
  r.post('/api/orders', placeDoc, auth, limit, validate({ body: placeSpotOrderSchema }, { acceptBody: plainSpotOrder }), async (req, res) => {
    const { order } = await spot.orders.place(principal(req).userId, valid<PlaceSpotRequest>(res, 'body'));
    res.json(order);
  });
  const listDoc = doc({ summary: "The caller's spot orders, newest first", response: pagedSpotOrdersDtoSchema });
  r.get('/api/orders', listDoc, auth, validate({ query: listSpotOrdersQuery }), async (req, res) => {
    res.json(await spot.orders.list(principal(req).userId, valid<SpotOrderQuery>(res, 'query')));
  });
  const getDoc = doc({
    summary: 'One of the caller\'s spot orders',
    description: "Another user's order is a 404 like a missing one.",
    response: spotOrderDtoSchema,
    errors: [404],
  });
  r.get('/api/orders/:orderId', getDoc, auth, validate({ params: orderIdParams }), async (req, res) => {
    res.json(await spot.orders.get(principal(req).userId, String(req.params.orderId)));
  });
  const cancelDoc = doc({
    summary: 'Cancel one spot order; answers the cancelled order',
    description: 'Releases what the order reserved. An order that is not open any more is a 409.',
    response: spotOrderDtoSchema,
    errors: [404, 409],
  });
  r.delete('/api/orders/:orderId', cancelDoc, auth, limit, validate({ params: orderIdParams }), async (req, res) => {
    res.json(await spot.orders.cancel(principal(req).userId, String(req.params.orderId)));
  });
  const cancelAllDoc = doc({
    summary: "Cancel every order the caller holds on one pair",
    response: cancelledOrdersDtoSchema,
  });
  r.delete('/api/orders', cancelAllDoc, auth, limit, validate({ query: cancelAllQuery }), async (req, res) => {
    const { currencyPairCode } = valid<{ currencyPairCode: string }>(res, 'query');
    res.json({ cancelled: await spot.orders.cancelAll(principal(req).userId, currencyPairCode) });
  });
  // the caller's fills, as /api/futures/deals/user is for futures
  const userTradesDoc = doc({
    summary: "The caller's fills on one spot pair, newest first",
    description:
      'Kept TRADE_HISTORY_DAYS; `beforeId` (the last id read) gives the next page. A self-trade is two fills, never split across pages (a page may then hold limit + 1).',
    response: Joi.array().items(spotUserTradeDtoSchema),
    errors: [404],
  });
  r.get('/api/trades/:pair/user', userTradesDoc, auth, validate({ query: userTradesQuery }), async (req, res) => {
    const q = valid<SpotUserTradesQuery>(res, 'query');
    res.json(await spot.userTrades.list(principal(req).userId, String(req.params.pair), q));
  });
  return r;
}
