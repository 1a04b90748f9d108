// The public REST endpoints the page reads: pair listings, book, trades, candles, futures pairs.

async function getJson(path) {
  const res = await fetch(path, { headers: { accept: 'application/json' } });
  if (!res.ok) throw new Error(`GET ${path}: ${res.status}`);
  return res.json();
}

/** OpenAPI `FuturesPairInfo` spells the futures code field with a Cyrillic first letter (U+0441). */
const FUTURES_CODE = '\u0441urrencyPairCode';

/** Every market the page can show: { kind, code, digitsPrice, digitsAmount }. */
export async function listMarkets() {
  const [spot, futures] = await Promise.all([
    getJson('/api/currencies/pairs'),
    getJson('/api/futures/exchange-data/pairs'),
  ]);
  return [
    ...spot.map((p) => ({ kind: 'spot', code: p.currencyPairCode, digitsPrice: p.digitsPrice, digitsAmount: p.digitsAmount })),
    ...futures
      .filter((p) => p.isActive)
      .map((p) => ({ kind: 'futures', code: p[FUTURES_CODE], digitsPrice: p.basePricePrecision, digitsAmount: p.quantityPrecision })),
  ];
}

/** Funding of one futures pair: { fundingRate, fundingRateFinishTimestamp }, or null. */
export async function futuresFunding(code) {
  const pairs = await getJson('/api/futures/exchange-data/pairs');
  return pairs.find((p) => p[FUTURES_CODE] === code) ?? null;
}

/** Recent trades, newest first, as { id?, price, amount, side, timestamp }. */
export async function recentTrades(market, limit = 50) {
  if (market.kind === 'spot') return getJson(`/api/trades/${encodeURIComponent(market.code)}?limit=${limit}`);
  const q = new URLSearchParams({ CurrencyPair: market.code, PageSize: String(limit) });
  const { items } = await getJson(`/api/futures/deals?${q}`);
  return items.map((d) => ({ price: d.price, amount: d.amount, side: d.isLong ? 'buy' : 'sell', timestamp: d.timestamp }));
}

/** Candles of one market and period, oldest first (`Candle` objects of the OpenAPI document). */
export function candles(kind, code, period) {
  const q = new URLSearchParams({ CurrencyPair: code, Kind: kind, CandleTimePeriod: String(period) });
  return getJson(`/api/futures/exchange-data/candles?${q}`);
}

/**
 * Where the market-data websocket is: `?ws=` on the page's URL wins, then the api role's
 * /config.json: its `wsUrl` (PUBLIC_WS_URL; a path such as `/ws` is on this page's own host and
 * port, behind the compose proxy), else this host on its `wsPort`.
 */
export async function websocketUrl() {
  const override = new URLSearchParams(location.search).get('ws');
  if (override) return override;
  const cfg = await getJson('/config.json');
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  if (cfg.wsUrl) return cfg.wsUrl.startsWith('/') ? `${scheme}://${location.host}${cfg.wsUrl}` : cfg.wsUrl;
  return `${scheme}://${location.hostname}:${cfg.wsPort}${cfg.wsPath}`;
}
