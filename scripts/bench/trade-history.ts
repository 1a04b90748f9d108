/**
 * npm run bench:history — the trade history under size and under readers (issue 11's acceptance).
 * `npm start` (api role) against a redis-server of its own whose spot and futures BTC_USDT markets
 * each hold a 24-hour history of HISTORY_TRADES (1,000,000) trades, written by the engine's own
 * include (lua/includes/tradeHistory.lua) in commands of 100 trades.
 *
 * 1. First and last page of every history endpoint over HTTP, READS times each: median, p99, max
 *    (acceptance: under 50 ms each).
 * 2. Order placement latency (POST /api/orders, PLACERS loops, PLACE_SECONDS) alone, then while
 *    READERS (8) anonymous readers page through historical_trades?limit=0 from first page to last,
 *    over and over (acceptance: p99 less than 2x).
 *
 * Env: HISTORY_TRADES (1000000), READS (30), PLACERS (2), PLACE_SECONDS (15), READERS (8),
 * BENCH_MAX_SECONDS (900).
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import jwt from 'jsonwebtoken';
import { Keys } from '../../src/platform/redis/keys';
import { LUA_DIR, resolveIncludes } from '../../src/platform/redis/lua-loader';
import { startService } from '../lib/outage/service-process';
import { envInt, exitAfter } from './lib/deadline';
import { startBenchRedis } from './lib/redis-server';
import { printTable, fmtNum } from './lib/report';
import { percentile, median } from './lib/stats';

const TRADES = envInt('HISTORY_TRADES', 1_000_000);
const READS = envInt('READS', 30);
const PLACERS = envInt('PLACERS', 2);
const PLACE_SECONDS = envInt('PLACE_SECONDS', 15);
const READERS = envInt('READERS', 8);
const PER_COMMAND = 100;
const USERS = 1000;
const DAY_MS = 24 * 3600 * 1000;
/** The whale takes every tenth trade: 100,000 of each market's 1,000,000, the user pages' worst case. */
const WHALE_SHARE = 0.1;

/** One EVAL writes `commands` commands of PER_COMMAND trades each through recordTrades. */
const FILL = resolveIncludes(
  LUA_DIR,
  `--- @include "includes/tradeHistory"
local P, kind, pair = ARGV[1], ARGV[2], ARGV[3]
local firstId, commands, t0, stepMs = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
local users = tonumber(ARGV[8])
-- every tenth trade is the whale's: a user with ${WHALE_SHARE} of the market's trades
local function taker(id, users)
  if id % ${1 / WHALE_SHARE} == 0 then return 'whale' end
  return 'u' .. (id % users)
end
local id = firstId
for c = 0, commands - 1 do
  local ctx = { P = P, pair = pair, ts = string.format('%d', t0 + c * stepMs), events = {} }
  if kind == 'futures' then ctx.fut = {} end
  for i = 1, ${PER_COMMAND} do
    local side = 'buy'
    if id % 2 == 0 then side = 'sell' end
    ctx.events[i] = { e = 'trade', id = string.format('%d', id), p = string.format('%d', 5000000 + id % 1000), q = '1000',
      side = side, tk = string.format('%d', 2 * id), mk = string.format('%d', 2 * id + 1),
      tu = taker(id, users), mu = 'm' .. (id % users), tf = '2', mf = '1',
      tpnl = '0', mpnl = '0', tpos = string.format('%d', 2 * id), mpos = string.format('%d', 2 * id + 1), tl = '1', ml = '0', tt = '2' }
    id = id + 1
  end
  recordTrades(ctx)
end
return id`,
  'fill-history.lua',
);

async function fill(redis: Redis, keys: Keys, kind: 'spot' | 'futures', firstId: number, now: number): Promise<void> {
  const commands = TRADES / PER_COMMAND;
  // the 24 hours end a minute ago, so B's 24-hour window still holds the oldest while the bench runs
  const t0 = now - DAY_MS + 10 * 60_000;
  const stepMs = (DAY_MS - 11 * 60_000) / commands;
  // 10 commands an EVAL: Redis stays responsive to the service (its command timeout is 1 s)
  const perEval = 10;
  for (let c = 0; c < commands; c += perEval) {
    await redis.eval(FILL, 0, keys.engine, kind, 'BTC_USDT', firstId + c * PER_COMMAND, perEval, Math.round(t0 + c * stepMs), stepMs, USERS);
  }
}

const token = (secret: string, sub: string, admin = false) =>
  `Bearer ${jwt.sign(admin ? { sub, role: 'admin' } : { sub }, secret, { algorithm: 'HS256', expiresIn: '1h' })}`;

async function timed(url: string, headers: Record<string, string> = {}): Promise<number> {
  const t = performance.now();
  const r = await fetch(url, { headers });
  await r.arrayBuffer();
  if (r.status !== 200) throw new Error(`${url}: ${r.status}`);
  return performance.now() - t;
}

async function pages(api: string, secret: string): Promise<void> {
  const user = { authorization: token(secret, 'u7') };
  const whale = { authorization: token(secret, 'whale') };
  const oldest = 1;
  // the whale's spot trades are every tenth id from 10: its oldest 1000 lie below id 10,001
  const whaleSpotLast = 1000 / WHALE_SHARE + 1;
  const whaleFuturesPages = Math.ceil((TRADES * WHALE_SHARE) / 500);
  const cases: [string, string, Record<string, string>?][] = [
    ['/api/trades first', '/api/trades/BTC_USDT?limit=1000'],
    ['/api/trades last', `/api/trades/BTC_USDT?limit=1000&beforeId=${oldest + 1000}`],
    ['/api/trades/{pair}/user whale first', '/api/trades/BTC_USDT/user?limit=1000', whale],
    ['/api/trades/{pair}/user whale last', `/api/trades/BTC_USDT/user?limit=1000&beforeId=${whaleSpotLast}`, whale],
    ['A historical_trades limit=0 first', '/api/marketdata/aggregator-a/historical_trades?ticker_id=BTC_USDT&limit=0'],
    ['A historical_trades limit=0 last', `/api/marketdata/aggregator-a/historical_trades?ticker_id=BTC_USDT&limit=0&before_id=${oldest + 1000}`],
    ['A historical_trades all pairs first', '/api/marketdata/aggregator-a/historical_trades?limit=0'],
    ['B trades first', '/api/marketdata/getaggregatorb/trades/BTC_USDT'],
    ['B trades last', `/api/marketdata/getaggregatorb/trades/BTC_USDT?before_id=${oldest + 1000}`],
    ['futures deals pair first', '/api/futures/deals?CurrencyPair=BTC_USDT&PageSize=500'],
    ['futures deals pair last', `/api/futures/deals?CurrencyPair=BTC_USDT&PageSize=500&Page=${TRADES / 500}`],
    ['futures deals all pairs last', `/api/futures/deals?PageSize=500&Page=${TRADES / 500}`],
    ['futures deals/user first', '/api/futures/deals/user?PageSize=500', user],
    ['futures deals/user last', `/api/futures/deals/user?PageSize=500&Page=${Math.max(1, Math.ceil(TRADES / USERS / 500))}`, user],
    ['futures deals/user whale first', '/api/futures/deals/user?PageSize=500', whale],
    ['futures deals/user whale last', `/api/futures/deals/user?PageSize=500&Page=${whaleFuturesPages}`, whale],
    ['futures deals/user whale pair last', `/api/futures/deals/user?CurrencyPair=BTC_USDT&PageSize=500&Page=${whaleFuturesPages}`, whale],
  ];
  const rows = [];
  for (const [name, path, headers] of cases) {
    await timed(api + path, headers);
    const ms: number[] = [];
    for (let i = 0; i < READS; i++) ms.push(await timed(api + path, headers));
    rows.push([name, fmtNum(median(ms)), fmtNum(percentile(ms, 99)), fmtNum(Math.max(...ms))]);
  }
  printTable(`First and last pages of a ${TRADES.toLocaleString('en')}-trade history (ms, ${READS} reads each)`, ['read', 'median', 'p99', 'max'], rows);
}

async function placements(api: string, secret: string, seconds: number): Promise<number[]> {
  const ms: number[] = [];
  const end = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: PLACERS }, async (_, i) => {
      const headers = { authorization: token(secret, `placer${i}`), 'content-type': 'application/json' };
      const body = JSON.stringify({ currencyPairCode: 'BTC_USDT', side: 'buy', type: 'limit', price: 1000, amount: 0.001 });
      while (Date.now() < end) {
        const t = performance.now();
        const r = await fetch(`${api}/api/orders`, { method: 'POST', headers, body });
        await r.arrayBuffer();
        if (r.status !== 200) throw new Error(`placement: ${r.status}`);
        ms.push(performance.now() - t);
      }
    }),
  );
  return ms;
}

/** A reader that follows `Link: rel="next"` from the first page to the last, then starts again. */
async function fullHistoryReader(api: string, stop: () => boolean): Promise<{ pages: number; passes: number }> {
  let pagesRead = 0;
  let passes = 0;
  while (!stop()) {
    let next: string | null = '/api/marketdata/aggregator-a/historical_trades?ticker_id=BTC_USDT&limit=0';
    while (next && !stop()) {
      const r: Response = await fetch(api + next, { headers: { 'accept-encoding': 'gzip' } });
      await r.arrayBuffer();
      pagesRead++;
      const link = r.headers.get('link');
      next = link ? (/^<([^>]+)>/.exec(link)?.[1] ?? null) : null;
    }
    if (!next) passes++;
  }
  return { pages: pagesRead, passes };
}

async function main(): Promise<void> {
  exitAfter(envInt('BENCH_MAX_SECONDS', 900), 'bench:history');
  const secret = randomBytes(32).toString('hex');
  const server = await startBenchRedis({ allowEnvUrl: false });
  const redis = new Redis(server.url);
  const keys = new Keys('bench');
  const service = await startService({
    ...process.env, REDIS_URL: server.url, JWT_SECRET: secret, KEY_PREFIX: 'bench', LOG_LEVEL: 'info', ROLES: 'api',
    RATE_LIMIT_PER_SECOND: '1000000', RATE_LIMIT_BURST: '1000000',
  });
  const api = `http://127.0.0.1:${service.apiPort}`;
  try {
    const now = Date.now();
    let t = performance.now();
    await fill(redis, keys, 'spot', 1, now);
    await fill(redis, keys, 'futures', TRADES + 1, now);
    await redis.set(keys.tradeIds(), String(2 * TRADES));
    while ((await fetch(`${api}/ready`)).status !== 200) await new Promise((r) => setTimeout(r, 200));
    const mem = /used_memory_human:(\S+)/.exec(await redis.info('memory'))?.[1];
    console.log(`filled 2 x ${TRADES} trades in ${fmtNum((performance.now() - t) / 1000)} s; Redis uses ${mem}`);

    await pages(api, secret);

    for (let i = 0; i < PLACERS; i++) {
      const r = await fetch(`${api}/api/admin/deposits`, {
        method: 'POST', headers: { authorization: token(secret, 'ops', true), 'content-type': 'application/json' },
        body: JSON.stringify({ userId: `placer${i}`, currencyCode: 'USDT', amount: 10_000_000 }),
      });
      if (r.status !== 200) throw new Error(`deposit: ${r.status}`);
    }
    await placements(api, secret, 2);
    const alone = await placements(api, secret, PLACE_SECONDS);
    let stopped = false;
    t = performance.now();
    const readers = Array.from({ length: READERS }, () => fullHistoryReader(api, () => stopped));
    const loaded = await placements(api, secret, PLACE_SECONDS);
    stopped = true;
    const read = await Promise.all(readers);
    const secondsRead = (performance.now() - t) / 1000;
    const row = (name: string, ms: number[]) => [name, ms.length, fmtNum(median(ms)), fmtNum(percentile(ms, 95)), fmtNum(percentile(ms, 99))];
    printTable(`Order placement (${PLACERS} loops, ${PLACE_SECONDS} s each), ms`, ['while', 'orders', 'p50', 'p95', 'p99'], [
      row('alone', alone),
      row(`${READERS} full-history readers`, loaded),
    ]);
    const pagesRead = read.reduce((a, r) => a + r.pages, 0);
    console.log(`readers: ${pagesRead} pages of 1000 trades in ${fmtNum(secondsRead)} s (${fmtNum(pagesRead / secondsRead)} pages/s), ${read.reduce((a, r) => a + r.passes, 0)} full passes`);
    console.log(`p99 ratio: ${fmtNum(percentile(loaded, 99) / percentile(alone, 99))}x (acceptance: under 2x)`);
  } finally {
    await service.stop();
    redis.disconnect();
    await server.stop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
