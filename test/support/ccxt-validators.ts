import { Precise, type Exchange } from 'ccxt';

/**
 * CCXT's unified-structure checks (the rules of ccxt's own test suite, ts/src/test/Exchange/base,
 * which the npm package does not ship), written here as data checks. Each throws with the
 * structure and the rule it broke; `ctx` names the method for the message.
 */
type Entry = Record<string, unknown>;

function fail(ctx: string, rule: string, entry: unknown): never {
  throw new Error(`${ctx}: ${rule} ::: ${JSON.stringify(entry)}`);
}

const str = (v: unknown): string | undefined => (v === undefined || v === null ? undefined : String(v));

/** Every key of `format` is present; those not in `emptyAllowed` hold a value of the format's type. */
function structure(ctx: string, e: Entry, format: Record<string, 'string' | 'number' | 'boolean' | 'object' | 'array' | 'any'>, emptyAllowed: string[]): void {
  if (!e || typeof e !== 'object') fail(ctx, 'not an object', e);
  for (const [key, type] of Object.entries(format)) {
    if (!(key in e)) fail(ctx, `"${key}" missing`, e);
    const v = e[key];
    if (v === undefined || v === null) {
      if (!emptyAllowed.includes(key)) fail(ctx, `"${key}" has no value`, e);
      continue;
    }
    const ok = type === 'any' || (type === 'array' ? Array.isArray(v) : typeof v === type);
    if (!ok) fail(ctx, `"${key}" is not of type ${type}`, e);
  }
}

function greater(ctx: string, e: Entry, key: string, than: string, orEqual = false): void {
  const v = str(e[key]);
  if (v === undefined) return;
  if (!(orEqual ? Precise.stringGe(v, than) : Precise.stringGt(v, than))) fail(ctx, `${key} ${v} not ${orEqual ? '>=' : '>'} ${than}`, e);
}

function oneOf(ctx: string, e: Entry, key: string, allowed: unknown[]): void {
  if (e[key] !== undefined && !allowed.includes(e[key])) fail(ctx, `${key} "${String(e[key])}" not in ${JSON.stringify(allowed)}`, e);
}

/** An integer ms timestamp between 2009 and 2038, not ahead of now, and `datetime` its ISO form. */
function timestamp(ex: Exchange, ctx: string, e: Entry, required = false): void {
  if (!('timestamp' in e)) fail(ctx, 'timestamp missing', e);
  const ts = e.timestamp as number | undefined;
  if (ts === undefined) {
    if (required) fail(ctx, 'timestamp has no value', e);
    return;
  }
  if (!Number.isInteger(ts) || ts <= 1230940800000 || ts >= 2147483648000) fail(ctx, 'timestamp out of range', e);
  if (ts >= Date.now() + 60_000) fail(ctx, 'timestamp ahead of now', e);
  if ('datetime' in e && e.datetime !== undefined && ex.iso8601(ex.parse8601(e.datetime as string)) !== ex.iso8601(ts)) {
    fail(ctx, 'datetime is not the timestamp', e);
  }
}

function fee(ex: Exchange, ctx: string, f: unknown): void {
  if (f === undefined) return;
  if (typeof f !== 'object' || f === null) fail(ctx, 'fee is not an object', f);
  const o = f as Entry;
  if (!('cost' in o) || !('currency' in o)) fail(ctx, 'fee without cost or currency', f);
  if (o.currency !== undefined && !(String(o.currency) in ex.currencies)) fail(ctx, `fee currency ${String(o.currency)} unknown`, f);
}

function symbol(ctx: string, e: Entry, expected?: string): void {
  if (expected !== undefined && e.symbol !== expected) fail(ctx, `symbol ${String(e.symbol)} is not ${expected}`, e);
}

export function checkMarket(ex: Exchange, m: Entry): void {
  const ctx = 'market';
  structure(ctx, m, {
    id: 'string', symbol: 'string', base: 'string', quote: 'string', taker: 'number', maker: 'number', baseId: 'string',
    quoteId: 'string', active: 'boolean', type: 'string', linear: 'boolean', inverse: 'boolean', spot: 'boolean', swap: 'boolean',
    future: 'boolean', option: 'boolean', margin: 'boolean', contract: 'boolean', contractSize: 'number', expiry: 'number',
    expiryDatetime: 'string', optionType: 'string', strike: 'number', settle: 'string', settleId: 'string',
    precision: 'object', limits: 'object', marginModes: 'object', info: 'any',
  }, ['margin', 'expiry', 'expiryDatetime', 'optionType', 'strike', ...(m.contract ? [] : ['contractSize', 'linear', 'inverse', 'settle', 'settleId'])]);
  for (const k of ['taker', 'maker']) {
    greater(ctx, m, k, '-100');
    if (!Precise.stringLt(str(m[k]) as string, '100')) fail(ctx, `${k} not < 100`, m);
  }
  oneOf(ctx, m, 'type', ['spot', 'margin', 'swap', 'future', 'option', 'index', 'other']);
  oneOf(ctx, m, 'subType', ['linear', 'inverse', 'quanto', undefined]);
  for (const t of ['spot', 'swap', 'future', 'option']) if (m[t] && m.type !== t) fail(ctx, `${t} but type ${String(m.type)}`, m);
  if (m.swap || m.future) for (const s of ['linear', 'inverse']) if (m[s] && m.subType !== s) fail(ctx, `${s} but subType ${String(m.subType)}`, m);
  if (m.spot) {
    if (m.contract || m.linear !== undefined || m.inverse !== undefined || m.swap || m.future || m.option) fail(ctx, 'spot with contract fields', m);
    if (m.contractSize !== undefined || m.settle !== undefined) fail(ctx, 'spot with contractSize or settle', m);
  } else {
    if (!m.contract || !(m.swap || m.future || m.option)) fail(ctx, 'a contract market without its kind', m);
    if (m.linear === m.inverse) fail(ctx, 'linear and inverse alike', m);
    greater(ctx, m, 'contractSize', '0');
    if (m.settle === undefined || m.settleId === undefined) fail(ctx, 'contract without settle', m);
    oneOf(ctx, m, 'margin', [false, undefined]);
  }
  if (!m.future && !m.option && (m.expiry !== undefined || m.expiryDatetime !== undefined)) fail(ctx, 'expiry on a perpetual', m);
  const precision = m.precision as Entry;
  if (!('price' in precision) || !('amount' in precision)) fail(ctx, 'precision without price and amount', m);
  for (const k of Object.keys(precision)) {
    if (precision[k] === undefined) continue;
    greater(ctx, precision, k, '0');
    // tick sizes: an integer digit count here would mean decimal places were given as ticks
    if (['2', '3', '4', '6', '7', '8', '9', '11', '12', '13', '14', '15', '16'].some((n) => Precise.stringEq(str(precision[k]) as string, n))) {
      fail(ctx, `precision.${k} looks like decimal places`, m);
    }
  }
  const limits = m.limits as Record<string, Entry>;
  for (const k of ['amount', 'price', 'cost']) if (!(k in limits)) fail(ctx, `limits.${k} missing`, m);
  for (const k of Object.keys(limits)) {
    greater(ctx, limits[k], 'min', '0', true);
    greater(ctx, limits[k], 'max', '0');
    if (limits[k].min !== undefined) greater(ctx, limits[k], 'max', str(limits[k].min) as string, true);
  }
  for (const [id, code] of [[m.baseId, m.base], [m.quoteId, m.quote], [m.settleId, m.settle]]) {
    if ((id === undefined) !== (code === undefined)) fail(ctx, 'a currency id without its code', m);
    if (id !== undefined && ex.currency(code as string).id !== id) fail(ctx, `currency ${String(code)} is not id ${String(id)}`, m);
  }
  const modes = m.marginModes as Entry;
  if (!('cross' in modes) || !('isolated' in modes)) fail(ctx, 'marginModes without cross and isolated', m);
}

export function checkCurrency(ex: Exchange, c: Entry): void {
  const ctx = 'currency';
  // fetchCurrencies is native here, so deposit and withdraw must say what holds
  structure(ctx, c, {
    info: 'any', id: 'string', code: 'string', name: 'string', withdraw: 'boolean', deposit: 'boolean', active: 'boolean',
    precision: 'number', fee: 'number', limits: 'object', networks: 'object', type: 'string',
  }, ['name', 'fee', 'active', 'type']);
  if (c.deposit === false && c.withdraw === false && c.active !== false) fail(ctx, 'active without deposit or withdraw', c);
  if (c.deposit === true && c.withdraw === true && c.active !== true) fail(ctx, 'inactive with deposit and withdraw', c);
  greater(ctx, c, 'precision', '0');
  greater(ctx, c, 'fee', '0', true);
  if (!(String(c.code) in ex.currencies) || ex.currency(c.code as string).id !== c.id) fail(ctx, 'id and code do not match', c);
}

export function checkOrder(ex: Exchange, o: Entry, sym?: string): void {
  const ctx = 'order';
  structure(ctx, o, {
    info: 'any', id: 'string', clientOrderId: 'string', timestamp: 'number', datetime: 'string', lastTradeTimestamp: 'number',
    symbol: 'string', type: 'string', timeInForce: 'string', postOnly: 'boolean', side: 'string', price: 'number',
    stopPrice: 'number', amount: 'number', cost: 'number', average: 'number', filled: 'number', remaining: 'number',
    status: 'string', fee: 'object', trades: 'array',
  }, ['clientOrderId', 'timestamp', 'datetime', 'lastTradeTimestamp', 'symbol', 'type', 'timeInForce', 'postOnly', 'side',
    'price', 'stopPrice', 'amount', 'cost', 'average', 'filled', 'remaining', 'status', 'fee', 'trades']);
  timestamp(ex, ctx, o);
  oneOf(ctx, o, 'timeInForce', ['GTC', 'GTK', 'IOC', 'FOK']);
  oneOf(ctx, o, 'status', ['open', 'closed', 'canceled']);
  oneOf(ctx, o, 'side', ['buy', 'sell']);
  oneOf(ctx, o, 'postOnly', [true, false]);
  symbol(ctx, o, sym);
  for (const k of ['price', 'stopPrice', 'cost', 'average']) greater(ctx, o, k, '0');
  for (const k of ['filled', 'remaining', 'amount']) greater(ctx, o, k, '0', true);
  for (const k of ['remaining', 'filled']) if (o[k] !== undefined) greater(ctx, o, 'amount', str(o[k]) as string, true);
  for (const t of (o.trades as Entry[] | undefined) ?? []) checkTrade(ex, t, sym);
  fee(ex, ctx, o.fee);
}

export function checkTrade(ex: Exchange, t: Entry, sym?: string): void {
  const ctx = 'trade';
  structure(ctx, t, {
    info: 'any', id: 'string', timestamp: 'number', datetime: 'string', symbol: 'string', order: 'string', side: 'string',
    takerOrMaker: 'string', price: 'number', amount: 'number', cost: 'number', fees: 'array', fee: 'object',
  }, ['fees', 'fee', 'symbol', 'order', 'id', 'takerOrMaker', 'timestamp', 'datetime']);
  timestamp(ex, ctx, t);
  symbol(ctx, t, sym);
  oneOf(ctx, t, 'side', ['buy', 'sell']);
  oneOf(ctx, t, 'takerOrMaker', ['taker', 'maker']);
  fee(ex, ctx, t.fee);
  for (const f of (t.fees as unknown[] | undefined) ?? []) fee(ex, ctx, f);
}

export function checkOrderBook(ex: Exchange, b: Entry, sym?: string): void {
  const ctx = 'orderbook';
  structure(ctx, b, { symbol: 'string', asks: 'array', bids: 'array', timestamp: 'number', datetime: 'string', nonce: 'number' }, [
    'nonce', 'timestamp', 'datetime',
  ]);
  timestamp(ex, ctx, b);
  symbol(ctx, b, sym);
  const bids = b.bids as number[][];
  const asks = b.asks as number[][];
  bids.forEach((l, i) => {
    if (!(l[0] > 0 && l[1] > 0)) fail(ctx, 'a bid level not above zero', b);
    if (i > 0 && !(bids[i - 1][0] > l[0])) fail(ctx, 'bids not descending', b);
  });
  asks.forEach((l, i) => {
    if (!(l[0] > 0 && l[1] > 0)) fail(ctx, 'an ask level not above zero', b);
    if (i > 0 && !(asks[i - 1][0] < l[0])) fail(ctx, 'asks not ascending', b);
  });
  if (bids.length && asks.length && !(bids[0][0] < asks[0][0])) fail(ctx, 'crossed book', b);
}

export function checkTicker(ex: Exchange, t: Entry, sym?: string): void {
  const ctx = 'ticker';
  const nums = ['high', 'low', 'bid', 'bidVolume', 'ask', 'askVolume', 'vwap', 'open', 'close', 'last', 'previousClose', 'change', 'percentage', 'average', 'baseVolume', 'quoteVolume'];
  structure(ctx, t, { info: 'any', symbol: 'string', timestamp: 'number', datetime: 'string', ...Object.fromEntries(nums.map((k) => [k, 'number' as const])) }, [
    'timestamp', 'datetime', ...nums,
  ]);
  timestamp(ex, ctx, t);
  for (const k of ['open', 'high', 'low', 'close', 'ask', 'bid', 'average']) greater(ctx, t, k, '0');
  for (const k of ['askVolume', 'bidVolume', 'vwap', 'baseVolume', 'quoteVolume']) greater(ctx, t, k, '0', true);
  if (str(t.last) !== str(t.close) && !(t.last !== undefined && t.close !== undefined && Precise.stringEq(str(t.last) as string, str(t.close) as string))) {
    fail(ctx, 'last != close', t);
  }
  if (t.ask !== undefined && t.bid !== undefined) greater(ctx, t, 'ask', str(t.bid) as string);
  symbol(ctx, t, sym);
}

export function checkOHLCV(c: unknown[]): void {
  const ctx = 'ohlcv';
  if (!Array.isArray(c) || c.length < 6) fail(ctx, 'not an array of six', c);
  c.slice(0, 6).forEach((v, i) => typeof v !== 'number' && fail(ctx, `index ${i} is not a number`, c));
  const [ts, o, h, l, cl] = c as number[];
  if (!Number.isInteger(ts) || ts <= 1230940800000 || ts >= Date.now() + 60_000) fail(ctx, 'timestamp out of range', c);
  if (o > h || l > h || l > cl) fail(ctx, 'open/low/close outside high and low', c);
}

export function checkBalance(ex: Exchange, b: Entry): void {
  const ctx = 'balance';
  structure(ctx, b, { free: 'object', used: 'object', total: 'object', info: 'any' }, []);
  const free = b.free as Entry;
  const used = b.used as Entry;
  for (const [code, total] of Object.entries(b.total as Entry)) {
    if (!(code in ex.currencies)) fail(ctx, `currency ${code} unknown`, b);
    const [t, f, u] = [str(total), str(free[code]), str(used[code])];
    if (t === undefined || f === undefined || u === undefined) fail(ctx, `${code}: free, used or total missing`, b);
    if (!Precise.stringEq(t, Precise.stringAdd(f, u))) fail(ctx, `${code}: free + used != total`, b);
  }
}

export function checkPosition(ex: Exchange, p: Entry, sym?: string): void {
  const ctx = 'position';
  const nums = ['initialMargin', 'initialMarginPercentage', 'maintenanceMargin', 'maintenanceMarginPercentage', 'entryPrice',
    'notional', 'leverage', 'unrealizedPnl', 'contracts', 'contractSize', 'marginRatio', 'liquidationPrice', 'markPrice', 'collateral', 'percentage'];
  structure(ctx, p, { info: 'any', symbol: 'string', timestamp: 'number', datetime: 'string', marginMode: 'string', side: 'string',
    ...Object.fromEntries(nums.map((k) => [k, 'number' as const])) },
  ['timestamp', 'datetime', 'initialMargin', 'initialMarginPercentage', 'maintenanceMargin', 'maintenanceMarginPercentage', 'notional',
    'leverage', 'unrealizedPnl', 'marginRatio', 'liquidationPrice', 'collateral', 'percentage']);
  timestamp(ex, ctx, p);
  symbol(ctx, p, sym);
  oneOf(ctx, p, 'side', ['long', 'short']);
  oneOf(ctx, p, 'marginMode', ['cross', 'isolated']);
  greater(ctx, p, 'leverage', '0');
  if (p.leverage !== undefined && !Precise.stringLe(str(p.leverage) as string, '200')) fail(ctx, 'leverage above 200', p);
  for (const k of ['initialMargin', 'initialMarginPercentage', 'maintenanceMargin', 'maintenanceMarginPercentage', 'entryPrice',
    'notional', 'contracts', 'contractSize', 'marginRatio', 'liquidationPrice', 'markPrice', 'collateral']) greater(ctx, p, k, '0');
}

/** CCXT's order of every list: ascending by timestamp. */
export function checkAscending(ctx: string, items: { timestamp?: number | null }[]): void {
  for (let i = 1; i < items.length; i++) {
    const [a, b] = [items[i - 1].timestamp, items[i].timestamp];
    if (a !== undefined && a !== null && b !== undefined && b !== null && a > b) fail(ctx, `not ascending by timestamp at ${i}`, items.map((x) => x.timestamp));
  }
}
