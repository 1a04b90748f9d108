import type { Dict } from 'ccxt';
import { EXACT_ERRORS, STATUS_ERRORS } from './errors';

/** The candle periods of docs/market-data.md#candles, in seconds, under ccxt's timeframe names. */
export const TIMEFRAMES: Record<string, number> = {
  '1m': 60,
  '3m': 180,
  '5m': 300,
  '15m': 900,
  '30m': 1800,
  '1h': 3600,
  '4h': 14400,
  '8h': 28800,
  '1d': 86400,
  '1w': 604800,
  '1M': 2592000,
};

/** ccxt's order-entry and REST-over-socket methods: none exists here. */
const WS_ORDER_ENTRY = [
  'createOrderWs', 'createOrdersWs', 'editOrderWs', 'cancelOrderWs', 'cancelOrdersWs', 'cancelAllOrdersWs',
  'createLimitOrderWs', 'createMarketOrderWs', 'createPostOnlyOrderWs', 'createLimitBuyOrderWs', 'createLimitSellOrderWs',
  'createMarketBuyOrderWs', 'createMarketSellOrderWs', 'createMarketOrderWithCostWs', 'createMarketBuyOrderWithCostWs',
  'createMarketSellOrderWithCostWs', 'createStopOrderWs', 'createStopLimitOrderWs', 'createStopMarketOrderWs',
  'createStopLossOrderWs', 'createTakeProfitOrderWs', 'createTriggerOrderWs', 'createReduceOnlyOrderWs',
  'createTrailingAmountOrderWs', 'createTrailingPercentOrderWs', 'createOrderWithTakeProfitAndStopLossWs',
  'fetchBalanceWs', 'fetchOrderWs', 'fetchOrdersWs', 'fetchOpenOrdersWs', 'fetchClosedOrdersWs', 'fetchMyTradesWs',
  'fetchPositionsWs', 'fetchPositionWs', 'fetchTradesWs', 'fetchOrderBookWs', 'fetchTickerWs', 'fetchOHLCVWs',
];

/**
 * The exchange's static description (ccxt's `describe()`): where it is, what it can do, its REST
 * routes (ccxt turns each into an implicit method, e.g. `privatePostApiOrders`) and its errors.
 */
export function exchangeDescription(): Dict {
  return {
    id: 'exchangebackend',
    name: 'Exchange Backend',
    countries: [],
    version: 'v1',
    // the service allows 50 placements and cancels a second per user by default
    rateLimit: 20,
    pro: true,
    certified: false,
    urls: {
      // market data on /ws, the caller's own state on /ws/user (docs/market-data.md)
      api: { rest: 'http://127.0.0.1:8080', ws: { public: 'ws://127.0.0.1:8081/ws', private: 'ws://127.0.0.1:8081/ws/user' } },
      www: 'http://127.0.0.1:8080',
      doc: 'clients/ccxt/README.md',
    },
    // the bearer token is a JWT, given as `apiKey` or `token`; there is no secret
    requiredCredentials: { apiKey: false, secret: false, token: false },
    has: {
      CORS: undefined,
      spot: true,
      margin: false,
      swap: true,
      future: false,
      option: false,
      cancelAllOrders: true,
      cancelOrder: true,
      closePosition: true,
      createMarketBuyOrderWithCost: true,
      createMarketOrder: true,
      createLimitOrder: true,
      createOrder: true,
      createPostOnlyOrder: true,
      createStopLossOrder: false,
      createTakeProfitOrder: false,
      fetchBalance: true,
      fetchClosedOrders: true,
      fetchCurrencies: true,
      fetchFundingRate: true,
      fetchMarkets: true,
      fetchMyTrades: true,
      fetchOHLCV: true,
      fetchOpenOrders: true,
      fetchOrder: true,
      fetchOrderBook: true,
      fetchOrders: true,
      fetchPositions: true,
      fetchTicker: true,
      fetchTickers: true,
      fetchTrades: true,
      setLeverage: false,
      transfer: true,
      withdraw: false,
      ws: true,
      watchOrderBook: true,
      watchTrades: true,
      watchTicker: true,
      watchOHLCV: true,
      watchOrders: true,
      watchMyTrades: true,
      watchBalance: true,
      watchPositions: true,
      // orders are never placed or cancelled over a socket (docs/api-contract.md#order-book-rules): every *Ws method is false
      ...Object.fromEntries(WS_ORDER_ENTRY.map((m) => [m, false])),
    },
    timeframes: Object.fromEntries(Object.keys(TIMEFRAMES).map((tf) => [tf, tf])),
    api: {
      public: {
        get: [
          'api/currencies',
          'api/currencies/pairs',
          'api/orderbook/{pair}',
          'api/trades/{pair}',
          'api/futures/exchange-data/candles',
          'api/futures/exchange-data/pairs',
          'api/futures/trade/orderbook/{currencyPairCode}',
          'api/futures/deals',
          'api/marketdata/getaggregatorb/summary',
          'api/external-providers/aggregator-a/contracts',
        ],
      },
      private: {
        get: [
          'api/wallet/balances',
          'api/orders',
          'api/orders/{orderId}',
          'api/trades/{pair}/user',
          'api/futures/accounts',
          'api/futures/trade/orders-history',
          'api/futures/trade/positions',
          'api/futures/deals/user',
        ],
        post: ['api/orders', 'api/futures/accounts', 'api/wallet/transfer', 'api/futures/trade/create-order'],
        put: ['api/futures/trade/close', 'api/futures/trade/update-take-profit', 'api/futures/trade/update-stop-loss'],
        delete: ['api/orders/{orderId}', 'api/orders'],
      },
    },
    fees: { trading: { percentage: true, tierBased: false } },
    // currency codes are opaque strings (order-book rule 8, docs/api-contract.md#order-book-rules): never rename one
    commonCurrencies: {},
    precisionMode: 4, // TICK_SIZE
    options: {
      defaultType: 'spot',
      // the API spends a quote amount on a market buy: amount × price, or `cost` in params
      createMarketBuyOrderRequiresPrice: true,
      // futures orders go to this futures account; by default the caller's first one in the quote currency
      futuresAccountId: undefined,
    },
    exceptions: { exact: EXACT_ERRORS, broad: {} },
    httpExceptions: STATUS_ERRORS,
  };
}
