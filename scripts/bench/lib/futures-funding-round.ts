import type Redis from 'ioredis';
import type { AppContext } from '../../../src/transport/context';
import type { CreateFuturesInput } from '../../../src/futures/futures-engine';
import { runPipelined } from './pipeline';

const PAIR = 'BTC_USDT';

export interface FundingRoundSample {
  positions: number;
  ms: number;
  perSec: number;
  collected: string;
  paid: string;
}

/**
 * bench:futures, the funding part: `positions` − 1 longs (market orders, each its own position)
 * against one short, a premium sample above the index, then one funding round timed:
 * settleFuturesFunding over every position (rate, fees, the pro rata split) and the sweeps after it.
 */
export async function fundingRound(ctx: AppContext, positions: number, batch: number, inFlight: number): Promise<FundingRoundSample> {
  const users = Array.from({ length: 10 }, (_, i) => `f${i}`);
  const accts: string[] = [];
  for (const u of ['fshort', ...users]) {
    await ctx.wallets.deposit(u, 'USDT', 10_000_000);
    const a = await ctx.futures.accounts.create(u, { name: 'funding', currencyCode: 'USDT', leverage: 10 });
    await ctx.futures.accounts.transfer(u, { fromFuturesAccountId: null, toFuturesAccountId: a.id, currencyCode: 'USDT', amount: 10_000_000 });
    accts.push(String(a.id));
  }
  const ts = Date.now();
  const lots = 1000; // 0.1 BTC at 100.0
  const longs = positions - 1;
  await ctx.futures.engine.create({
    userId: 'fshort', pairCode: PAIR, accountId: accts[0], side: 'sell', isMarket: false, priceTicks: '1000',
    amountLots: String(lots * longs), postOnly: false, stp: 'NONE', timestamp: ts,
  });
  const orders: CreateFuturesInput[] = Array.from({ length: longs }, (_, i) => ({
    userId: users[i % 10], pairCode: PAIR, accountId: accts[1 + (i % 10)], side: 'buy', isMarket: true,
    amountLots: String(lots), postOnly: false, stp: 'NONE', timestamp: ts,
  }));
  const run = await runPipelined(ctx.redis as Redis, {
    items: orders, batchSize: batch, inFlight,
    isOk: (r) => Array.isArray(r) && r.every((x) => Array.isArray(x) && x[0] === 'OK'),
    queue: (p, o) => ctx.futures.engine.queueCreate(p, [o]),
  });
  if (run.errors) throw new Error(`opening the positions failed: ${run.firstError}`);
  const pair = (await ctx.markets.store.getPair('futures', PAIR))!;
  await ctx.futures.market.setIndexPrice(PAIR, 100);
  // bids 1 % over the index, deep enough for the impact notional: a positive premium, longs pay
  await ctx.futures.engine.create({
    userId: 'fshort', pairCode: PAIR, accountId: accts[0], side: 'buy', isMarket: false, priceTicks: '1010',
    amountLots: String(lots * 2500), postOnly: false, stp: 'NONE', timestamp: ts,
  });
  const interval = ctx.config.fundingIntervalSeconds * 1000;
  const at = (Math.floor(Date.now() / interval) + 1) * interval;
  await ctx.futures.premium.sample(pair, at - 5000);
  const t0 = performance.now();
  const r = await ctx.futures.risk.settleFundingRound(PAIR, at);
  const ms = performance.now() - t0;
  if (!r || r.positions !== positions) throw new Error(`expected ${positions} positions settled, got ${r?.positions ?? 0}`);
  return { positions, ms, perSec: (positions / ms) * 1000, collected: r.collected, paid: r.paid };
}
