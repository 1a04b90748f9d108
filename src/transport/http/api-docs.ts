import { Router, type Express, type NextFunction, type Request, type Response } from 'express';
import Joi from 'joi';
import swaggerUi from 'swagger-ui-express';
import { routeDocs } from '../../platform/http/route-doc';
import { buildApiDocument, type ApiDocument, type ApiInfo } from './openapi/openapi-document';
import { version } from '../../../package.json';

export const OPENAPI_PATH = '/api/openapi.json';
export const API_DOCS_PATH = '/api/docs';

const doc = routeDocs('API reference');

export const API_INFO: ApiInfo = {
  title: 'Exchange API',
  version,
  description: [
    'Spot and futures exchange: orders, market data, copy trading and the aggregator feeds.',
    '',
    '- **Authentication**: `Authorization: Bearer <JWT>`; `sub` is the user id, `role: "admin"` an administrator. Locally `npm run token -- --user alice` prints one; paste it under *Authorize*.',
    '- **Errors**: every 4xx and 5xx has the body `{"error":{"code","message","details":[{"path","message"}]}}` (see *ErrorBody*).',
    '- **Idempotency**: send `Idempotency-Key: <any 1-255 visible ASCII>` on a POST, PUT or DELETE and a repeat within 24 h answers the first answer and changes nothing; orders also take `clientOrderId`.',
    '- **Numbers** are JSON numbers; prices and amounts are rounded down to the pair\'s digits on placement.',
    '- **Market data** also streams over the websocket (`ws://<host>:8081/ws`, docs/market-data.md); it carries no orders.',
    '',
    'This document is generated from the joi schemas the routes validate with (docs/api-reference.md).',
  ].join('\n'),
  // package.json: "UNLICENSED", a private project; no public licence text to point to
  license: { name: 'Proprietary (UNLICENSED): no licence is granted' },
  tags: {
    System: 'Liveness, readiness and Prometheus metrics of each process',
    'API reference': 'This document and the Swagger UI page that renders it',
    Admin: 'Operators (a token with role "admin"): currencies, pairs, deposits, index prices, insurance funds, shards',
    Markets: 'Currencies and spot pairs with their digits and minimums: public',
    'Spot market data': 'Order books and recent trades of spot pairs: public',
    'Futures market data': 'Futures pairs, candles of every pair and market-wide deals: public; a user\'s own deals need a token',
    'Wallet and futures accounts': "The caller's wallet balances, futures accounts and transfers between them",
    'Spot orders': 'Placing, reading and cancelling spot orders, and the caller\'s fills: one order per request',
    'Futures trading': 'Futures orders and positions: create, update TP/SL, close, history, and the futures order book',
    'Copy trading: masters': 'Master strategies: the public leaderboard and profiles, and the owner\'s own masters and followers',
    'Copy trading: followers': 'Slave accounts and their subscriptions to masters: start, settings, analytics, skipped fills, finish',
    'Aggregator A feeds (CoinGecko standard)': 'Public spot and futures feeds in the shape of CoinGecko\'s exchange API standard',
    'Aggregator B feeds (CoinMarketCap standard)': 'Public spot and futures feeds in the shape of CoinMarketCap\'s exchange API specification',
    'Live page': 'What the live market page at / needs to find the websocket',
  },
};

/**
 * GET /api/openapi.json (the document of every route of `app`, built on the first request, once
 * every router is mounted) and the Swagger UI reference at /api/docs, served from the
 * swagger-ui-dist package: the page loads nothing from elsewhere.
 */
export function apiDocs(app: Express): Router {
  const r = Router();
  let built: ApiDocument | undefined;
  r.get(
    OPENAPI_PATH,
    doc({ summary: 'This API as an OpenAPI 3.1 document', response: Joi.object().unknown(true), noStorage: true }),
    (_req, res) => {
      built ??= buildApiDocument(app, API_INFO);
      res.json(built.document);
    },
  );
  const options = {
    swaggerUrl: OPENAPI_PATH,
    customSiteTitle: 'Exchange API reference',
    // validatorUrl null: Swagger UI would otherwise send the document to an online validator
    swaggerOptions: { validatorUrl: null, persistAuthorization: true, displayRequestDuration: true, filter: true },
  };
  r.use(API_DOCS_PATH, withTrailingSlash, swaggerUi.serveFiles(undefined, options), swaggerUi.setup(undefined, options));
  return r;
}

/** The page loads its assets relative to itself, so /api/docs must be /api/docs/. */
function withTrailingSlash(req: Request, res: Response, next: NextFunction): void {
  const [path, query] = req.originalUrl.split('?');
  if (req.url.split('?')[0] === '/' && !path.endsWith('/')) {
    res.redirect(301, `${path}/${query === undefined ? '' : `?${query}`}`);
    return;
  }
  next();
}
