import { Router, type RequestHandler } from 'express';
import type { AppContext } from '../../transport/context';
import { principal } from '../../transport/http/middleware/auth';
import { valid, validate } from '../../platform/http/validate';
import { cancelAllQuery, listSpotOrdersQuery, orderIdParams, placeSpotOrderSchema } from './spot-order.schema';
import type { PlaceSpotRequest, SpotOrderQuery } from '../spot-order.service';

/** Spot orders (DESIGN 4, SPEC 4.7): one order per request, no batch endpoints. */
export function spotOrderRoutes(ctx: AppContext, auth: RequestHandler, limit: RequestHandler): Router {
  const r = Router();
  r.post('/api/orders', auth, limit, validate({ body: placeSpotOrderSchema }), async (req, res) => {
    const { order } = await ctx.spotOrders.place(principal(req).userId, valid<PlaceSpotRequest>(res, 'body'));
    res.json(order);
  });
  r.get('/api/orders', auth, validate({ query: listSpotOrdersQuery }), async (req, res) => {
    res.json(await ctx.spotOrders.list(principal(req).userId, valid<SpotOrderQuery>(res, 'query')));
  });
  r.get('/api/orders/:orderId', auth, validate({ params: orderIdParams }), async (req, res) => {
    res.json(await ctx.spotOrders.get(principal(req).userId, String(req.params.orderId)));
  });
  r.delete('/api/orders/:orderId', auth, limit, validate({ params: orderIdParams }), async (req, res) => {
    res.json(await ctx.spotOrders.cancel(principal(req).userId, String(req.params.orderId)));
  });
  r.delete('/api/orders', auth, limit, validate({ query: cancelAllQuery }), async (req, res) => {
    const { currencyPairCode } = valid<{ currencyPairCode: string }>(res, 'query');
    res.json({ cancelled: await ctx.spotOrders.cancelAll(principal(req).userId, currencyPairCode) });
  });
  return r;
}
