import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiClient, ApiError, renewingToken } from './api-client';
import { DemoStats, type DemoLog } from './demo-stats';
import { FairPrice } from './fair-price';
import { FuturesBot, FuturesMaker, FuturesTaker } from './futures-bots';
import { botUserId, loadMarkets, roundPrice, type DemoMarket } from './markets';
import { SpotMaker, SpotTaker, type Bot } from './spot-bots';

export interface DemoOptions {
  /** Base URL of the api role, e.g. http://127.0.0.1:8080 */
  apiUrl: string;
  /** HS256 secret the api role verifies tokens with (JWT_SECRET). */
  jwtSecret: string;
  log: DemoLog;
  makersPerMarket?: number;
  levels?: number;
  /** Quote value of a typical order (level 0 of a maker, an average taker order). */
  notional?: number;
  summaryEveryMs?: number;
}

export interface RunningDemo {
  /** Stops every bot, cancels what they left on the books, logs a last summary. */
  stop(): Promise<void>;
}

/** Wallet balance each bot keeps of every currency it trades (topped up at start, never drained). */
const BALANCE: Record<string, number> = { BTC: 2_000, ETH: 40_000 };
const QUOTE_BALANCE = 10_000_000;
const FUTURES_LEVERAGE = 10;
const FUTURES_MARGIN = 5_000_000;

/**
 * The demo market: makers and takers on every listed spot and futures pair, all of them clients
 * of the public REST API (admin endpoints for deposits and index prices, user tokens for the
 * rest), plus one loop that walks the fair prices and pushes them as futures index prices.
 */
export async function startDemo(opts: DemoOptions): Promise<RunningDemo> {
  const { log } = opts;
  const makersPerMarket = opts.makersPerMarket ?? 2;
  const levels = opts.levels ?? 3;
  const notional = opts.notional ?? 2_000;
  const admin = new ApiClient(opts.apiUrl, renewingToken(opts.jwtSecret, 'demo-admin', true));
  await waitUntilReady(admin, log);
  const markets = await loadMarkets(admin);
  if (markets.length === 0) throw new Error('demo: the API lists no pairs');
  const stats = new DemoStats(log);
  const fairs = await fairPrices(admin, markets);
  const bots: Bot[] = [];
  for (const m of markets) {
    const fair = fairs.get(m.base)!;
    const clientFor = (role: string) => new ApiClient(opts.apiUrl, renewingToken(opts.jwtSecret, botUserId(m, role)));
    for (let i = 1; i <= makersPerMarket; i++) {
      const user = botUserId(m, `maker${i}`);
      const api = clientFor(`maker${i}`);
      if (m.kind === 'spot') {
        await fundWallet(admin, api, user, m);
        bots.push(new SpotMaker(user, api, m, fair, stats, levels, notional));
      } else {
        const account = await futuresAccount(admin, api, user, m);
        const bot = new FuturesMaker(user, api, m, account, fair, stats, levels, notional);
        await bot.adoptLeftovers();
        bots.push(bot);
      }
    }
    const user = botUserId(m, 'taker');
    const api = clientFor('taker');
    if (m.kind === 'spot') {
      await fundWallet(admin, api, user, m);
      bots.push(new SpotTaker(user, api, m, fair, stats, notional));
    } else {
      const bot = new FuturesTaker(user, api, m, await futuresAccount(admin, api, user, m), fair, stats, notional);
      await bot.adoptLeftovers();
      bots.push(bot);
    }
  }
  log(
    `demo: ${bots.length} bots on ${markets.length} markets (${markets.map((m) => `${m.kind} ${m.code}`).join(', ')}) ` +
      `against ${opts.apiUrl}`,
  );

  const abort = new AbortController();
  setMaxListeners(bots.length + 4, abort.signal); // every loop waits on it
  const pause = (ms: number) => sleep(ms, undefined, { signal: abort.signal }).catch(() => undefined);
  const loops: Promise<void>[] = bots.map(async (bot, i) => {
    await pause((i % makersPerMarket) * 500); // the makers of one market re-quote out of step
    while (!abort.signal.aborted) {
      await bot.step().catch((err) => stats.error(bot.name, err));
      await pause(bot.nextDelay());
    }
  });
  const futures = markets.filter((m) => m.kind === 'futures');
  loops.push(
    (async () => {
      while (!abort.signal.aborted) {
        for (const f of fairs.values()) f.step();
        await Promise.all(futures.map((m) => pushIndex(admin, m, fairs.get(m.base)!, stats)));
        await pause(1000);
      }
    })(),
  );
  const summary = setInterval(() => log(stats.summary()), opts.summaryEveryMs ?? 10_000);

  return {
    async stop() {
      clearInterval(summary);
      abort.abort();
      await Promise.all(loops);
      // positions first, takers' then makers', while every maker's quotes still give them a counterparty
      const ordered = [...bots.filter((b) => !b.name.includes('maker')), ...bots.filter((b) => b.name.includes('maker'))];
      for (const bot of ordered) await bot.flatten?.().catch((err) => stats.error(`${bot.name} flatten`, err));
      let left = 0;
      for (const bot of ordered) left += await bot.finish().catch((err) => (stats.error(`${bot.name} finish`, err), 0));
      if (left > 0) left = await closeAgainstEachOther(bots.filter((b) => b instanceof FuturesBot), fairs, markets, stats);
      log(stats.summary());
      log(
        left === 0
          ? 'demo: stopped; every order it placed is cancelled or closed'
          : `demo: stopped; ${left} futures orders stay in position with their unfilled rest or close order resting ` +
            '(no counterparty left to close against); the next run closes them',
      );
    },
  };
}

/**
 * The futures positions the bots hold once nobody quotes any more: longs and shorts of one market
 * sum to zero among the bots, so a long rests a limit close at the fair price and a short closes
 * into it at market, until one side is flat. Resolves with the positions still open.
 */
async function closeAgainstEachOther(
  bots: FuturesBot[],
  fairs: Map<string, FairPrice>,
  markets: DemoMarket[],
  stats: DemoStats,
): Promise<number> {
  for (const m of markets.filter((x) => x.kind === 'futures')) {
    const here = bots.filter((b) => b.pair === m.code);
    const first = (isLong: boolean) => {
      for (const bot of here) {
        const p = bot.leftovers().find((o) => o.isLong === isLong);
        if (p) return { bot, id: p.id };
      }
      return undefined;
    };
    const price = roundPrice(m, fairs.get(m.base)!.futures);
    for (let round = 0; round < 50; round++) {
      const long = first(true);
      const short = first(false);
      if (!long || !short) break;
      await long.bot.closePosition(long.id, price).catch((err) => stats.error(`${long.bot.name} close`, err));
      await short.bot.closePosition(short.id, null).catch((err) => stats.error(`${short.bot.name} close`, err));
      await long.bot.closePosition(long.id, null).catch((err) => stats.error(`${long.bot.name} close`, err));
    }
  }
  return bots.reduce((n, b) => n + b.leftovers().length, 0);
}

async function waitUntilReady(api: ApiClient, log: DemoLog): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await api.get('/ready');
      return;
    } catch (err) {
      if (attempt >= 60) throw new Error(`demo: the API is not ready: ${(err as Error).message}`);
      if (attempt === 0) log('demo: waiting for the API to be ready');
      await sleep(500);
    }
  }
}

/** One fair price per base currency, starting at the last spot trade where there is one. */
async function fairPrices(api: ApiClient, markets: DemoMarket[]): Promise<Map<string, FairPrice>> {
  const out = new Map<string, FairPrice>();
  for (const m of markets) {
    if (out.has(m.base) && m.kind === 'futures') continue;
    let last: number | undefined;
    if (m.kind === 'spot') {
      const [t] = await api.get<{ price: number }[]>(`/api/trades/${encodeURIComponent(m.code)}`, { limit: 1 });
      last = t?.price;
    }
    if (!out.has(m.base) || last) out.set(m.base, new FairPrice(FairPrice.startingPrice(m.base, last)));
  }
  return out;
}

type Balance = { currencyCode: string; available: number; reserved: number };

/** Tops a spot bot's wallet up to the demo balance of base and quote (idempotent across runs). */
async function fundWallet(admin: ApiClient, api: ApiClient, userId: string, m: DemoMarket): Promise<void> {
  const balances = await api.get<Balance[]>('/api/wallet/balances');
  for (const [code, target] of [
    [m.base, BALANCE[m.base] ?? 1_000_000],
    [m.quote, QUOTE_BALANCE],
  ] as const) {
    const b = balances.find((x) => x.currencyCode === code);
    const held = b ? b.available + b.reserved : 0;
    if (held < target / 2) await admin.post('/api/admin/deposits', { userId, currencyCode: code, amount: target - held });
  }
}

/** The bot's futures account in the pair's quote currency, found or opened, topped up through the wallet. */
async function futuresAccount(admin: ApiClient, api: ApiClient, userId: string, m: DemoMarket): Promise<number> {
  type Account = { id: number; name: string; currencyCode: string; available: number };
  const existing = (await api.get<Account[]>('/api/futures/accounts')).find(
    (a) => a.name === 'demo' && a.currencyCode === m.quote,
  );
  const account =
    existing ??
    (await api.post<Account>('/api/futures/accounts', { name: 'demo', currencyCode: m.quote, leverage: FUTURES_LEVERAGE }));
  if (account.available < FUTURES_MARGIN / 2) {
    const amount = Math.ceil(FUTURES_MARGIN - account.available);
    await admin.post('/api/admin/deposits', { userId, currencyCode: m.quote, amount });
    await api.post('/api/wallet/transfer', {
      fromFuturesAccountId: null,
      toFuturesAccountId: account.id,
      currencyCode: m.quote,
      amount,
    });
  }
  return account.id;
}

async function pushIndex(admin: ApiClient, m: DemoMarket, fair: FairPrice, stats: DemoStats): Promise<void> {
  try {
    await admin.post('/api/admin/index-price', {
      currencyPairCode: m.code,
      price: Number(fair.spot.toFixed(m.digitsPrice)),
    });
    stats.indexPushes++;
  } catch (err) {
    stats.error(`index price ${m.code}`, err instanceof ApiError ? err : new Error(String(err)));
  }
}

/**
 * `DEMO=1 npm start`: the demo against the api role this process just started, or nothing when
 * DEMO is not 1. A demo that cannot start is logged; the service keeps running without it.
 */
export async function startDemoIfAsked(
  env: NodeJS.ProcessEnv,
  apiAddress: string | undefined,
  jwtSecret: string | undefined,
  log: DemoLog,
): Promise<RunningDemo | undefined> {
  if (env.DEMO !== '1') return undefined;
  if (!apiAddress || !jwtSecret) {
    log('demo: DEMO=1 needs the api role in this process and JWT_SECRET; not started');
    return undefined;
  }
  const apiUrl = `http://127.0.0.1:${new URL(apiAddress).port}`;
  return startDemo({ apiUrl, jwtSecret, log }).catch((err: Error) => {
    log(`demo: not started: ${err.message}`);
    return undefined;
  });
}
