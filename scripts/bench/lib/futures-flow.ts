/**
 * bench:futures' order flow, which profile:futures and profile:futures-lines run too, so their
 * counts are those of the bench: USERS makers rest limit orders around MID, then USERS takers send
 * orders that each fill one maker whole.
 */
import type { ChainableCommander } from 'ioredis';
import type { CreateFuturesInput } from '../../../src/futures/futures-engine';
import type { AppContext } from '../../../src/transport/context';

export const PAIR = 'BTC_USDT';
export const MID = 500_000; // 50,000.0 USDT in ticks (digitsPrice 1)
export const LOTS = 10; // 0.001 BTC: 50 USDT, above the pair minimums
const USERS = 10;
const MARGIN_USDT = 10_000_000;

/** Opens a futures account funded with `usdt` for each user; returns the account ids. */
export async function fundedAccounts(ctx: AppContext, users: string[], usdt: number): Promise<string[]> {
  const out: string[] = [];
  for (const u of users) {
    await ctx.wallets.deposit(u, 'USDT', usdt);
    const a = await ctx.futures.accounts.create(u, { name: 'bench', currencyCode: 'USDT', leverage: 10 });
    await ctx.futures.accounts.transfer(u, { fromFuturesAccountId: null, toFuturesAccountId: a.id, currencyCode: 'USDT', amount: usdt });
    out.push(String(a.id));
  }
  return out;
}

export interface FuturesFlow {
  /** Non-crossing limit orders of the makers, a sell above MID and a buy below it in turn. */
  resting: CreateFuturesInput[];
  /** The takers' orders, each crossing the book to fill one resting maker. */
  crossing: CreateFuturesInput[];
  /** The makers' accounts, then the takers'. */
  accounts: string[];
}

/** Opens the makers' and takers' accounts and builds `resting` and `crossing` orders of the flow. */
export async function futuresFlow(ctx: AppContext, resting: number, crossing: number): Promise<FuturesFlow> {
  const makers = Array.from({ length: USERS }, (_, i) => `m${i}`);
  const takers = Array.from({ length: USERS }, (_, i) => `t${i}`);
  const mAcc = await fundedAccounts(ctx, makers, MARGIN_USDT);
  const tAcc = await fundedAccounts(ctx, takers, MARGIN_USDT);
  const ts = Date.now();
  const input = (i: number, maker: boolean, side: 'buy' | 'sell', ticks: number): CreateFuturesInput => ({
    userId: (maker ? makers : takers)[i % USERS], pairCode: PAIR, accountId: (maker ? mAcc : tAcc)[i % USERS], side,
    isMarket: false, priceTicks: String(ticks), amountLots: String(LOTS), postOnly: false, stp: 'NONE', timestamp: ts,
  });
  const out: FuturesFlow = { resting: [], crossing: [], accounts: [...mAcc, ...tAcc] };
  for (let i = 0; i < resting; i++) {
    const k = Math.floor(i / 2) % 1000;
    out.resting.push(i % 2 === 0 ? input(i, true, 'sell', MID + 1 + k) : input(i, true, 'buy', MID - 1 - k));
  }
  for (let i = 0; i < crossing; i++) {
    out.crossing.push(i % 2 === 0 ? input(i, false, 'buy', MID + 1010) : input(i, false, 'sell', MID - 1010));
  }
  return out;
}

export type QueueOrders = (p: ChainableCommander, orders: CreateFuturesInput[]) => void;
