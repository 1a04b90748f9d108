import { Router, type RequestHandler } from 'express';
import type { WalletService } from '../../wallet';
import type { FuturesAccountService } from '../futures-account.service';
import type { FuturesMarketService } from '../futures-market.service';
import type { FuturesOrderService } from '../futures-order.service';
import { futuresAccountRoutes } from './futures-account.routes';
import { futuresMarketRoutes } from './futures-market.routes';
import { futuresTradeRoutes } from './futures-trade.routes';

/** Every futures endpoint but the operators': accounts and transfers, trading, deals and pairs. */
export function futuresRoutes(
  futures: { accounts: FuturesAccountService; orders: FuturesOrderService; market: FuturesMarketService },
  wallets: Pick<WalletService, 'balances'>,
  auth: RequestHandler,
  limit: RequestHandler,
): Router {
  const r = Router();
  r.use(futuresAccountRoutes(futures.accounts, wallets, auth));
  r.use(futuresTradeRoutes(futures, auth, limit));
  r.use(futuresMarketRoutes(futures.market, auth));
  return r;
}
