import express, { type Express } from 'express';
import type { AppContext } from '../context';
import { authenticate } from './middleware/auth';
import { errorHandler, notFoundHandler } from './middleware/errors';
import { requestMetrics } from './middleware/metrics';
import { orderRateLimit } from './middleware/rate-limit';
import { adminRoutes } from '../../markets/http/admin.routes';
import { copyMasterRoutes } from '../../copy/http/copy-master.routes';
import { copySlaveRoutes } from '../../copy/http/copy-slave.routes';
import { aggregatorRoutes } from '../../feeds/http/aggregator.routes';
import { exchangeDataRoutes } from '../../market-data/http/exchange-data.routes';
import { futuresAccountRoutes } from '../../futures/http/futures-account.routes';
import { futuresMarketRoutes } from '../../futures/http/futures-market.routes';
import { futuresTradeRoutes } from '../../futures/http/futures-trade.routes';
import { marketRoutes } from '../../markets/http/market.routes';
import { spotOrderRoutes } from '../../spot/http/spot-order.routes';
import { systemRoutes } from './system.routes';
import { queueDashboard } from './queue-dashboard';
import { walletRoutes } from '../../wallet/http/wallet.routes';

/** The REST application, without a listening socket (bin/ and tests decide how it is served). */
export function createApp(ctx: AppContext): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.use(requestMetrics);
  app.use(express.json({ limit: '64kb' }));
  const auth = authenticate(ctx.config);
  const limit = orderRateLimit(ctx.redis, ctx.config.keyPrefix, ctx.config.rateLimitPoints, ctx.config.rateLimitBurst);
  app.use(queueDashboard(ctx));
  for (const routes of appRouters(ctx, auth, limit)) app.use(routes);
  app.use(notFoundHandler);
  app.use(errorHandler(ctx.log));
  return app;
}

function appRouters(ctx: AppContext, auth: express.RequestHandler, limit: express.RequestHandler) {
  return [
    systemRoutes(ctx),
    adminRoutes(ctx, auth),
    marketRoutes(ctx),
    exchangeDataRoutes(ctx),
    walletRoutes(ctx, auth),
    spotOrderRoutes(ctx, auth, limit),
    futuresAccountRoutes(ctx, auth),
    futuresTradeRoutes(ctx, auth, limit),
    futuresMarketRoutes(ctx, auth),
    copyMasterRoutes(ctx, auth),
    copySlaveRoutes(ctx, auth),
    aggregatorRoutes(ctx),
  ];
}
