import { Router, type RequestHandler } from 'express';
import Joi from 'joi';
import { principal } from '../../platform/http/principal';
import { routeDocs } from '../../platform/http/route-doc';
import { valid, validate } from '../../platform/http/validate';
import {
  closeSchema, createFuturesOrderSchema, futuresBookQuery, ordersHistoryQuery, positionsQuery,
  updateStopLossSchema, updateTakeProfitSchema,
} from './futures.schema';
import { createdFuturesOrderDtoSchema, futuresBookDtoSchema, futuresOrderDtoSchema } from './futures-dto.schema';
import type { FuturesMarketService } from '../futures-market.service';
import type { CloseRequest, CreateFuturesRequest, FuturesListQuery, FuturesOrderService } from '../futures-order.service';

const doc = routeDocs('Futures trading');
const records = Joi.array().items(futuresOrderDtoSchema);

/** The futures trade routes (docs/futures.md#endpoints). The update and close endpoints answer the record as it stands afterwards. */
export function futuresTradeRoutes(
  futures: { orders: FuturesOrderService; market: FuturesMarketService },
  auth: RequestHandler,
  limit: RequestHandler,
): Router {
  const r = Router();
  const base = '/api/futures/trade';
  const createDoc = doc({
    summary: 'Create a futures order; once filled it is its own isolated position',
    description:
      'price is ignored for a market order; takeProfit and stopLoss omitted, null or 0 mean none. Margin = price × amount × contractValue / leverage, plus fees. Repeating a clientOrderId answers the original order; nothing is placed and no margin reserved twice (the futures trade routes, docs/futures.md#endpoints). Not enough margin, post-only that would take or below the pair minimum is a 422. Extension: timeInForce GTC (default) or IOC, a limit order that fills what it can at once and cancels the rest (never rests, its reservation released); postOnly with IOC is a 400.',
    response: createdFuturesOrderDtoSchema,
    errors: [404, 422],
  });
  r.post(`${base}/create-order`, createDoc, auth, limit, validate({ body: createFuturesOrderSchema }), async (req, res) => {
    res.json(await futures.orders.create(principal(req).userId, valid<CreateFuturesRequest>(res, 'body')));
  });
  const triggerDoc = (which: string) =>
    doc({
      summary: `Set or clear the ${which} of an order or position; answers the record`,
      description: `null or 0 clears it. A ${which} on the wrong side of the mark price is a 422 INVALID_TRIGGER; a closed or cancelled order a 409.`,
      response: futuresOrderDtoSchema,
      errors: [404, 409, 422],
    });
  r.put(`${base}/update-take-profit`, triggerDoc('take profit'), auth, validate({ body: updateTakeProfitSchema }), async (req, res) => {
    const b = valid<{ orderId: number; takeProfit: number | null }>(res, 'body');
    res.json(await futures.orders.updateTrigger(principal(req).userId, b.orderId, 'tp', b.takeProfit));
  });
  r.put(`${base}/update-stop-loss`, triggerDoc('stop loss'), auth, validate({ body: updateStopLossSchema }), async (req, res) => {
    const b = valid<{ orderId: number; stopLoss: number | null }>(res, 'body');
    res.json(await futures.orders.updateTrigger(principal(req).userId, b.orderId, 'sl', b.stopLoss));
  });
  const closeDoc = doc({
    summary: 'Close a position, or cancel an order that is not filled; answers the record',
    description:
      'At market, or with a limit order at limitPrice. Extension: amount closes that much of the position (rounded down to the lot; omitted, null or more than it holds: all of it), releasing its share of the margin with its realized pnl; the rest stays open with its TP/SL. A record that is not open, or a position with a close already working, is a 409; a market close with nothing to fill against a 422 NO_LIQUIDITY.',
    response: futuresOrderDtoSchema,
    errors: [404, 409, 422],
  });
  r.put(`${base}/close`, closeDoc, auth, limit, validate({ body: closeSchema }), async (req, res) => {
    res.json(await futures.orders.close(principal(req).userId, valid<CloseRequest>(res, 'body')));
  });
  const historyDoc = doc({ summary: "The caller's futures orders, newest first (OpenAPI `FuturesOrder` records)", response: records });
  r.get(`${base}/orders-history`, historyDoc, auth, validate({ query: ordersHistoryQuery }), async (req, res) => {
    res.json(await futures.orders.ordersHistory(principal(req).userId, valid<FuturesListQuery>(res, 'query')));
  });
  const positionsDoc = doc({
    summary: "The caller's positions, newest first",
    description: 'IsActive true: in position; false: closed; omitted: both.',
    response: records,
  });
  r.get(`${base}/positions`, positionsDoc, auth, validate({ query: positionsQuery }), async (req, res) => {
    res.json(await futures.orders.positions(principal(req).userId, valid<FuturesListQuery>(res, 'query')));
  });
  const bookDoc = doc({ summary: 'Order book of a futures pair (OpenAPI `OrderBook`)', response: futuresBookDtoSchema, errors: [404] });
  r.get(`${base}/orderbook/:currencyPairCode`, bookDoc, validate({ query: futuresBookQuery }), async (req, res) => {
    const { depth } = valid<{ depth: number }>(res, 'query');
    res.json(await futures.market.orderBook(String(req.params.currencyPairCode), depth));
  });
  return r;
}
