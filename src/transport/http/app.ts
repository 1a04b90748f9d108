import { constants as zlibConstants } from 'node:zlib';
import compression from 'compression';
import express, { type Express, type RequestHandler, type Router } from 'express';
import { copyRoutes } from '../../copy';
import { aggregatorRoutes } from '../../feeds';
import { adminIndexPriceRoutes, adminInsuranceFundRoutes, futuresRoutes, InsuranceFundReader, InsuranceFunding } from '../../futures';
import { exchangeDataRoutes, spotMarketDataRoutes } from '../../market-data';
import { adminMarketsRoutes, marketsRoutes } from '../../markets';
import { spotOrderRoutes } from '../../spot';
import { adminDepositRoutes, adminReconcileRoutes, walletRoutes } from '../../wallet';
import type { AppContext } from '../context';
import { apiDocs } from './api-docs';
import { authenticate, requireAdmin } from './middleware/auth';
import { errorHandler, notFoundHandler } from './middleware/errors';
import { authenticatedOnce, idempotency } from './middleware/idempotency';
import { requestMetrics } from './middleware/metrics';
import { orderRateLimit } from './middleware/rate-limit';
import { refuseReservedBodyKeys, refuseReservedKeys } from './middleware/reserved-keys';
import { securityHeaders } from './security-headers';
import { compressLargeJson, plainJsonBody, serveHotRoutes, type HotRoute } from './hot-routes';
import { systemRoutes } from './system.routes';
import { adminShardsRoutes } from './admin-shards.routes';
import { queueDashboard } from './queue-dashboard';
import { staticSite } from './static-site';

const COMPRESS_FROM_BYTES = 1024;
const BODY_LIMIT_BYTES = 64 * 1024;

/** The order-placing routes, served past the router (hot-routes.ts): what a trading client sends most. */
export const HOT_ROUTES: HotRoute[] = [
  { method: 'POST', path: '/api/orders' },
  { method: 'POST', path: '/api/futures/trade/create-order' },
];

/**
 * The REST application, without a listening socket (bin/ and tests decide how it is served).
 * `hot: false` leaves the hot routes to the router like every other (the tests compare the two).
 */
export function createApp(ctx: AppContext, { hot = true }: { hot?: boolean } = {}): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  const headers = securityHeaders(ctx.config.corsOrigins);
  // gzip/deflate/br past 1 KB, as Accept-Encoding allows (docs/aggregator-feeds.md); the fastest
  // levels: a leaderboard page (~77 KB) gzips in 1.1 ms at level 1 against 3.4 ms at 6, for 16 % more bytes
  const compress = compression({ threshold: COMPRESS_FROM_BYTES, level: zlibConstants.Z_BEST_SPEED, brotli: { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 1 } } });
  const json = express.json({ limit: BODY_LIMIT_BYTES });
  app.use(requestMetrics);
  app.use(headers);
  app.use(compress);
  app.use(json);
  app.use(refuseReservedKeys);
  const auth = authenticatedOnce(authenticate(ctx.config), idempotency(ctx.redis, ctx.keys, ctx.scripts));
  const limit = orderRateLimit(ctx.scripts, ctx.keys, ctx.config.rateLimitPoints, ctx.config.rateLimitBurst);
  app.use(systemRoutes(ctx));
  app.use(apiDocs(app)); // the API reference: /api/openapi.json and /api/docs (docs/api-reference.md)
  app.use(queueDashboard(ctx));
  // every operator endpoint, whichever feature serves it, sits behind one admin check
  app.use('/api/admin', auth, requireAdmin);
  for (const routes of featureRouters(ctx, auth, limit)) app.use(routes);
  app.use(staticSite(ctx.config.wsPort, ctx.config.publicWsUrl)); // the live market page at / (docs/live-page.md)
  app.use(notFoundHandler);
  const errors = errorHandler(ctx.log);
  app.use(errors);
  if (hot) {
    const instead = new Map<unknown, RequestHandler>([
      [compress, compressLargeJson(compress, COMPRESS_FROM_BYTES)],
      [json, plainJsonBody(json, BODY_LIMIT_BYTES)],
      [refuseReservedKeys, refuseReservedBodyKeys],
    ]);
    serveHotRoutes(app, HOT_ROUTES, { instead, errors, notFound: notFoundHandler });
  }
  return app;
}

/** Each feature's routes, given only that feature's services. */
function featureRouters(ctx: AppContext, auth: RequestHandler, limit: RequestHandler): Router[] {
  return [
    adminMarketsRoutes(ctx.markets.service),
    adminDepositRoutes(ctx.wallets),
    adminReconcileRoutes(ctx.funds.reconciler),
    adminIndexPriceRoutes(ctx.futures.market),
    adminInsuranceFundRoutes(
      new InsuranceFundReader(ctx.redis, ctx.shards, ctx.markets.store),
      new InsuranceFunding(ctx.shards, ctx.scripts, ctx.markets.store),
    ),
    adminShardsRoutes({ ...ctx, markets: ctx.markets.store }),
    marketsRoutes(ctx.markets.service),
    spotMarketDataRoutes(ctx.marketData.service),
    exchangeDataRoutes(ctx.marketData.candles),
    walletRoutes(ctx.wallets, auth),
    spotOrderRoutes(ctx.spot, auth, limit),
    futuresRoutes(ctx.futures, ctx.wallets, auth, limit),
    copyRoutes(ctx.copy, auth),
    aggregatorRoutes(ctx.feeds),
  ];
}
