import { Router, type RequestHandler } from 'express';
import { principal } from '../../platform/http/principal';
import { valid, validate } from '../../platform/http/validate';
import { cancelAllQuery, listSpotOrdersQuery, orderIdParams, placeSpotOrderSchema, userTradesQuery } from './spot-order.schema';
import type { SpotUserTrades, SpotUserTradesQuery } from '../spot-user-trades';
import type { PlaceSpotRequest, SpotOrderQuery, SpotOrderService } from '../spot-order.service';

/** Spot orders (DESIGN 4, SPEC 4.7): one order per request, no batch endpoints. */
export function spotOrderRoutes(
  spot: { orders: SpotOrderService; userTrades: SpotUserTrades },
  auth: RequestHandler,
  limit: RequestHandler,
): Router {
  const r = Router();
  r.post('/api/orders', auth, limit, validate({ body: placeSpotOrderSchema }), async (req, res) => {
    const { order } = await spot.orders.place(principal(req).userId, valid<PlaceSpotRequest>(res, 'body'));
    res.json(order);
  });
  r.get('/api/orders', auth, validate({ query: listSpotOrdersQuery }), async (req, res) => {
    res.json(await spot.orders.list(principal(req).userId, valid<SpotOrderQuery>(res, 'query')));
  });
  r.get('/api/orders/:orderId', auth, validate({ params: orderIdParams }), async (req, res) => {
    res.json(await spot.orders.get(principal(req).userId, String(req.params.orderId)));
  });
  r.delete('/api/orders/:orderId', auth, limit, validate({ params: orderIdParams }), async (req, res) => {
    res.json(await spot.orders.cancel(principal(req).userId, String(req.params.orderId)));
  });
  r.delete('/api/orders', auth, limit, validate({ query: cancelAllQuery }), async (req, res) => {
    const { currencyPairCode } = valid<{ currencyPairCode: string }>(res, 'query');
    res.json({ cancelled: await spot.orders.cancelAll(principal(req).userId, currencyPairCode) });
  });
  // the caller's fills, as /api/futures/deals/user is for futures
  r.get('/api/trades/:pair/user', auth, validate({ query: userTradesQuery }), async (req, res) => {
    const q = valid<SpotUserTradesQuery>(res, 'query');
    res.json(await spot.userTrades.list(principal(req).userId, String(req.params.pair), q));
  });
  return r;
}
