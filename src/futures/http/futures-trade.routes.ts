import { Router, type RequestHandler } from 'express';
import { principal } from '../../platform/http/principal';
import { valid, validate } from '../../platform/http/validate';
import {
  closeSchema, createFuturesOrderSchema, futuresBookQuery, ordersHistoryQuery, positionsQuery,
  updateStopLossSchema, updateTakeProfitSchema,
} from './futures.schema';
import type { FuturesMarketService } from '../futures-market.service';
import type { CloseRequest, CreateFuturesRequest, FuturesListQuery, FuturesOrderService } from '../futures-order.service';

/** SPEC 4.3. The update and close endpoints answer the record as it stands afterwards (SPEC leaves the body open). */
export function futuresTradeRoutes(
  futures: { orders: FuturesOrderService; market: FuturesMarketService },
  auth: RequestHandler,
  limit: RequestHandler,
): Router {
  const r = Router();
  const base = '/api/futures/trade';
  r.post(`${base}/create-order`, auth, limit, validate({ body: createFuturesOrderSchema }), async (req, res) => {
    res.json(await futures.orders.create(principal(req).userId, valid<CreateFuturesRequest>(res, 'body')));
  });
  r.put(`${base}/update-take-profit`, auth, validate({ body: updateTakeProfitSchema }), async (req, res) => {
    const b = valid<{ orderId: number; takeProfit: number | null }>(res, 'body');
    res.json(await futures.orders.updateTrigger(principal(req).userId, b.orderId, 'tp', b.takeProfit));
  });
  r.put(`${base}/update-stop-loss`, auth, validate({ body: updateStopLossSchema }), async (req, res) => {
    const b = valid<{ orderId: number; stopLoss: number | null }>(res, 'body');
    res.json(await futures.orders.updateTrigger(principal(req).userId, b.orderId, 'sl', b.stopLoss));
  });
  r.put(`${base}/close`, auth, limit, validate({ body: closeSchema }), async (req, res) => {
    res.json(await futures.orders.close(principal(req).userId, valid<CloseRequest>(res, 'body')));
  });
  r.get(`${base}/orders-history`, auth, validate({ query: ordersHistoryQuery }), async (req, res) => {
    res.json(await futures.orders.ordersHistory(principal(req).userId, valid<FuturesListQuery>(res, 'query')));
  });
  r.get(`${base}/positions`, auth, validate({ query: positionsQuery }), async (req, res) => {
    res.json(await futures.orders.positions(principal(req).userId, valid<FuturesListQuery>(res, 'query')));
  });
  r.get(`${base}/orderbook/:currencyPairCode`, validate({ query: futuresBookQuery }), async (req, res) => {
    const { depth } = valid<{ depth: number }>(res, 'query');
    res.json(await futures.market.orderBook(String(req.params.currencyPairCode), depth));
  });
  return r;
}
