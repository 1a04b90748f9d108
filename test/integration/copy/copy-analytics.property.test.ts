import BigNumber from 'bignumber.js';
import { tradingAnalytics } from '../../../src/copy/copy-analytics';
import { AppError } from '../../../src/domain/errors';
import type { AccountTradingStats } from '../../../src/futures';
import { analyticsOfOrders, statsOfOrders } from '../../support/analytics-oracle';
import { rng } from '../../support/random-trading';
import { futuresBed } from '../futures/helpers';

const DAY = 86_400_000;
const plain = (s: AccountTradingStats) => ({
  ...s,
  net: s.net.toFixed(), openNet: s.openNet.toFixed(), funding: s.funding.toFixed(),
  closedDaily: Object.fromEntries([...s.closedDaily].map(([d, v]) => [d, v.toString()])),
  pairs: Object.fromEntries([...s.pairs].map(([c, p]) => [c, { trades: p.trades, net: p.net.toFixed(), volume: p.volume.toFixed() }])),
});
const refused = (err: unknown) => {
  if (!(err instanceof AppError && err.status < 500)) throw err;
};

/**
 * The engine's incremental aggregates (lua/includes/futures/accountStats.lua) against the full
 * recompute over every order (test/support/analytics-oracle.ts), after random trading spread over
 * days: limit and market orders that open, add to, partly and fully close positions, closes at
 * market, index moves with funding rounds, TP/SL and liquidation sweeps. Then a rebuild from the
 * orders (the backfill) gives the same aggregates again. Aggregates are kept for tracked accounts
 * only (those copy trading reads): two are tracked from the start, one from midway (its aggregates
 * rebuilt from the orders it placed untracked), and one never is, which leaves no aggregate keys.
 */
describe('copy analytics: incremental aggregates equal the full recompute', () => {
  let b: Awaited<ReturnType<typeof futuresBed>>;
  let clock = 0;
  beforeAll(async () => {
    b = await futuresBed();
    const real = Date.now.bind(Date);
    jest.spyOn(Date, 'now').mockImplementation(() => real() + clock);
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await b.ctx.cleanup();
  });

  it.each([11, 23])('seed %i', async (seed) => {
    const random = rng(seed);
    const { ctx } = b;
    const users = ['p1', 'p2', 'p3', 'p4'].map((u) => `${u}-${seed}`);
    const accts = new Map<string, number>();
    for (const u of users) accts.set(u, await b.fundedAccount(u, 1_000_000, 5));
    const [first, second, late, untracked] = users.map((u) => accts.get(u) as number);
    const tracked = [first, second];
    for (const acct of tracked) await ctx.futures.accountStats.track(acct);
    let lateFilledBefore = 0;
    let index = 100;
    await ctx.futures.market.setIndexPrice('BTC_USDT', index);
    for (let step = 0; step < 160; step++) {
      // a reader midway keeps the decoded daily series: every later change must still reach the end's reads
      if (step % 16 === 8) await ctx.futures.accountStats.read(tracked);
      // tracked midway: the rebuild in the tracking step counts what it traded before (twice: idempotent)
      if (step === 80) {
        const before = (await ctx.futures.accountReader.state(late))?.orders ?? [];
        lateFilledBefore = before.filter((o) => o.h.status === '20' || o.h.status === '50').length;
        await ctx.futures.accountStats.track(late);
        await ctx.futures.accountStats.track(late);
        tracked.push(late);
      }
      if (random() < 0.08) clock += Math.floor(random() * 2.5 * DAY);
      const user = users[Math.floor(random() * users.length)];
      const acct = accts.get(user) as number;
      const roll = random();
      if (roll < 0.15) {
        const open = (await ctx.futures.accountReader.state(acct, undefined, 'open'))?.orders ?? [];
        const pick = open[Math.floor(random() * open.length)];
        if (pick) await ctx.futures.orders.close(user, { orderId: Number(pick.h.id), isMarket: true }).catch(refused);
      } else if (roll < 0.22) {
        index = Math.max(60, Math.min(140, index + Math.round((random() - 0.5) * 16)));
        await ctx.futures.market.setIndexPrice('BTC_USDT', index);
        if (random() < 0.5) await ctx.futures.risk.settleFundingRound('BTC_USDT', Date.now(), Date.now());
        else await ctx.futures.risk.sweep('BTC_USDT', Date.now());
      } else {
        const isLong = random() < 0.5;
        const isMarket = random() < 0.3;
        const price = Math.round((index + (isLong ? -1 : 1) * (random() * 4 - 1)) * 10) / 10;
        const amount = Math.round((0.05 + random() * 2) * 1000) / 1000;
        const tp = random() < 0.2 ? { takeProfit: isLong ? index * 1.05 : index * 0.95 } : {};
        await ctx.futures.orders
          .create(user, { isMarket, isLong, price: isMarket ? null : price, amount, currencyPairCode: 'BTC_USDT', futuresAccountId: acct, ...tp })
          .catch(refused);
      }
    }
    const now = Date.now();
    let closedSeen = 0;
    let fundingSeen = false;
    let manyDays = false;
    expect(tracked).toEqual([first, second, late]);
    // tracked at the registry (the account's home, which its id names) and where the market's scripts read the flag
    const flags = async (acct: number, keys: { futuresAccount(id: number): string }) => ctx.redis.hget(keys.futuresAccount(acct), 'stats');
    for (const acct of [...tracked, untracked]) {
      const want = acct === untracked ? null : '1';
      expect([await flags(acct, ctx.futures.keyring.ofAccount(acct)), await flags(acct, ctx.futures.keyring.ofPair('BTC_USDT'))]).toEqual([want, want]);
    }
    expect(lateFilledBefore).toBeGreaterThan(0);
    for (const acct of tracked) {
      const state = await ctx.futures.accountReader.state(acct);
      const orders = state?.orders ?? [];
      closedSeen += orders.filter((o) => o.h.status === '20').length;
      const [kept] = await ctx.futures.accountStats.read([acct]);
      fundingSeen ||= !kept.funding.isZero();
      manyDays ||= kept.tradingDays > 1 && kept.closedDaily.size > 1;
      expect(plain(kept)).toEqual(plain(statsOfOrders(orders)));
      const initial = new BigNumber(1_000_000).times(1e8);
      const open = orders.filter((o) => o.h.status === '50');
      const incremental = tradingAnalytics(kept, open, initial, 8, now);
      expect(incremental).toEqual(analyticsOfOrders(orders, initial, 8, now));
      await ctx.futures.accountStats.rebuild(acct);
      const [rebuilt] = await ctx.futures.accountStats.read([acct]);
      expect(plain(rebuilt)).toEqual(plain(kept));
    }
    // the untracked account traded (filled orders, closed positions) and left no aggregates
    const untrackedOrders = (await ctx.futures.accountReader.state(untracked))?.orders ?? [];
    expect(untrackedOrders.filter((o) => o.h.status === '20').length).toBeGreaterThan(0);
    for (const k of ctx.futures.keyring.all()) {
      expect(await ctx.redis.exists(k.futuresStats(untracked), k.futuresDaily(untracked), k.futuresDays(untracked))).toBe(0);
    }
    // the history is worth checking: positions closed, over several days
    expect(closedSeen).toBeGreaterThan(5);
    expect(clock).toBeGreaterThan(DAY);
    expect([fundingSeen, manyDays]).toEqual([true, true]);
  }, 240_000);
});
