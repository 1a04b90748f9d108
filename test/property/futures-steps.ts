import fc from 'fast-check';
import { AppError } from '../../src/domain/errors';
import type { testContext } from '../support/harness';
import { futuresOrderOf } from '../../src/futures/futures-order-record';
import type { FuturesTriggerIndex } from '../../src/platform/redis/keys';
import { FuturesOrderIndex } from '../../src/futures/futures-order-index';
import { FuturesKeyring } from '../../src/futures/futures-keyring';
import { DepositLedger, expectConserved, moneyHeld } from '../support/money';

/**
 * The futures property test's steps and invariants (futures.property.test.ts), shared with the replays
 * of its counterexamples (futures-regressions.test.ts): random sequences of futures opens (limit and
 * market, long and short, with TP/SL), closes, TP/SL moves, index price moves and funding rounds
 * across several accounts, through the services and the Lua engine, each followed by the risk sweep.
 * After every step: the book is not crossed, open long size equals open short size (the insurance
 * fund's taken-over lots counted), no balance, margin or reservation is negative, the margin currency
 * neither appears nor vanishes (wallets + accounts + fees + insurance + pnl pool), the insurance fund
 * is never negative, every liquidation price follows from its position's current margin, and no open
 * position is left at or below maintenance at the mark.
 */

export type Ctx = Awaited<ReturnType<typeof testContext>>;
export const USERS = ['u0', 'u1', 'u2', 'u3'];
const PAIR = 'BTC_USDT';

export type Step =
  | { kind: 'open'; user: number; isLong: boolean; isMarket: boolean; price: number; amount: number; tp: number; sl: number }
  | { kind: 'close'; user: number; pick: number; isMarket: boolean; price: number }
  | { kind: 'trigger'; user: number; pick: number; which: 'tp' | 'sl'; price: number }
  | { kind: 'index'; price: number }
  | { kind: 'funding' }
  | { kind: 'premium' };

const price = fc.integer({ min: 850, max: 1150 }).map((t) => t / 10);
export const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.record({
    kind: fc.constant('open' as const), user: fc.integer({ min: 0, max: USERS.length - 1 }), isLong: fc.boolean(),
    isMarket: fc.boolean(), price, amount: fc.integer({ min: 1, max: 300 }).map((l) => l / 100),
    tp: fc.oneof(fc.constant(0), price), sl: fc.oneof(fc.constant(0), price),
  }) },
  { weight: 3, arbitrary: fc.record({
    kind: fc.constant('close' as const), user: fc.integer({ min: 0, max: USERS.length - 1 }), pick: fc.nat(),
    isMarket: fc.boolean(), price,
  }) },
  { weight: 1, arbitrary: fc.record({
    kind: fc.constant('trigger' as const), user: fc.integer({ min: 0, max: USERS.length - 1 }), pick: fc.nat(),
    which: fc.constantFrom('tp' as const, 'sl' as const), price,
  }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('index' as const), price: fc.integer({ min: 600, max: 1400 }).map((t) => t / 10) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('funding' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('premium' as const) }) },
);

export async function run(ctx: Ctx, steps: Step[], leverages: number[]): Promise<void> {
  const accounts: string[] = [];
  const ledger = DepositLedger.of(ctx);
  for (const [i, u] of USERS.entries()) {
    await ctx.wallets.deposit(u, 'USDT', 500 + i * 137.12345678);
    const a = await ctx.futures.accounts.create(u, { name: 'p', currencyCode: 'USDT', leverage: leverages[i] });
    await ctx.futures.accounts.transfer(u, { fromFuturesAccountId: null, toFuturesAccountId: a.id, currencyCode: 'USDT', amount: 400 });
    accounts.push(String(a.id));
  }
  await expectConserved(ctx, ledger, 'USDT');
  let now = Date.now();
  for (const step of steps) {
    await expectBusiness(apply(ctx, step, accounts, (now += 28_800_000)));
    // the sweep on the steps' clock: a funding step refreshes the mark at its time, and a refresh at an
    // earlier second changes nothing, so a sweep on the wall clock would read a stale mark
    await ctx.futures.risk.sweep(PAIR, now);
    await checkInvariants(ctx, accounts, ledger, step);
  }
}

async function apply(ctx: Ctx, s: Step, accounts: string[], now: number): Promise<unknown> {
  switch (s.kind) {
    case 'open':
      return ctx.futures.orders.create(USERS[s.user], {
        isMarket: s.isMarket, isLong: s.isLong, price: s.price, amount: s.amount, currencyPairCode: PAIR,
        futuresAccountId: Number(accounts[s.user]), takeProfit: s.tp, stopLoss: s.sl,
      });
    case 'close': {
      const id = await pickOrder(ctx, s.user, s.pick);
      if (!id) return undefined;
      return ctx.futures.orders.close(USERS[s.user], { orderId: id, isMarket: s.isMarket, limitPrice: s.price });
    }
    case 'trigger': {
      const id = await pickOrder(ctx, s.user, s.pick);
      if (!id) return undefined;
      return ctx.futures.orders.updateTrigger(USERS[s.user], id, s.which, s.price);
    }
    case 'index':
      return ctx.futures.market.setIndexPrice(PAIR, s.price);
    case 'funding':
      return fundingZeroSum(ctx, now);
    case 'premium': {
      const pair = await ctx.markets.store.getPair('futures', PAIR);
      return pair && ctx.futures.premium.sample(pair, now - 5000);
    }
  }
}

/**
 * A funding round is exactly zero-sum: what the positions' funding fields moved by (payers +,
 * receivers −) is the residue of the split, never negative, under one unit per receiver, and it is
 * what the round adds to the insurance fund before its sweep.
 */
async function fundingZeroSum(ctx: Ctx, now: number): Promise<void> {
  const sum = async () => {
    let t = 0n;
    for (const [, h] of await everyOrder(ctx)) t += BigInt(h.funding || '0');
    return t;
  };
  const before = await sum();
  // the round named by the step's clock, the mark refreshed at the real one (it stays current after)
  const r = await ctx.futures.risk.settleFundingRound(PAIR, Date.now(), now);
  const moved = (await sum()) - before;
  const residue = r ? BigInt(r.collected) - BigInt(r.paid) : 0n;
  expect(['funding', moved, residue >= 0n, residue <= BigInt(r?.positions ?? 0)]).toEqual(['funding', residue, true, true]);
}

/** Every order the id counter handed out, by id, decoded ({} for an id given back): no index read. */
async function everyOrder(ctx: Ctx): Promise<[string, Record<string, string>][]> {
  const top = Number((await ctx.redis.get(ctx.keys.orderIds())) ?? 0);
  const reads = ctx.redis.pipeline();
  for (let id = 1; id <= top; id++) reads.hgetall(ctx.keys.order(id));
  return ((await reads.exec()) ?? []).map(([, h], i) => [String(i + 1), futuresOrderOf(h as Record<string, string>)]);
}

async function pickOrder(ctx: Ctx, user: number, pick: number): Promise<number | undefined> {
  const ids = await new FuturesOrderIndex(ctx.redis, FuturesKeyring.of(ctx.keys)).userOrderIds(USERS[user]);
  return ids.length ? Number(ids[pick % ids.length]) : undefined;
}

/** Business rejections (4xx) are part of the game; anything else fails the property. */
async function expectBusiness(p: Promise<unknown>): Promise<void> {
  try {
    await p;
  } catch (err) {
    if (err instanceof AppError && err.status < 500) return;
    throw err;
  }
}

async function checkInvariants(ctx: Ctx, accounts: string[], ledger: DepositLedger, step: Step): Promise<void> {
  const where = JSON.stringify(step);
  const k = ctx.keys;
  const bid = await ctx.redis.zrange(k.levels('futures', PAIR, 'bids'), '0', '0');
  const ask = await ctx.redis.zrange(k.levels('futures', PAIR, 'asks'), '0', '0');
  if (bid.length && ask.length) expect([where, Number(bid[0]) < Number(ask[0])]).toEqual([where, true]);

  let long = 0;
  let short = 0;
  let lockedByOrders = 0;
  const inPosition: [string, Record<string, string>][] = [];
  const indexed = new Map(accounts.map((a) => [a, { all: [] as string[], open: [] as string[] }]));
  // every opening order of the players, found by id, not through the indices checked below
  const players = new Set(USERS);
  const byUser = new Map(USERS.map((u) => [u, [] as string[]]));
  for (const [id, h] of await everyOrder(ctx)) {
    if (h.role !== 'open' || !players.has(h.user)) continue;
    byUser.get(h.user)?.push(id);
    indexed.get(h.acct)?.all.push(id);
    if (h.status === '10' || h.status === '50') indexed.get(h.acct)?.open.push(id);
    for (const f of ['rsv', 'margin', 'openQty', 'cost']) expect([where, id, f, Number(h[f]) >= 0]).toEqual([where, id, f, true]);
    if (h.status === '50') {
      inPosition.push([id, h]);
      if (h.side === 'buy') long += Number(h.openQty);
      else short += Number(h.openQty);
    } else {
      expect([where, id, h.openQty]).toEqual([where, id, '0']);
    }
    lockedByOrders += Number(h.rsv) + Number(h.margin);
  }
  // the insurance fund holds what it took over in liquidations (signed lots, long positive)
  const fundHeld = Number((await ctx.redis.hget(k.insuranceFund(), `position:${PAIR}`)) ?? '0');
  expect([where, long + Math.max(0, fundHeld)]).toEqual([where, short + Math.max(0, -fundHeld)]);
  await checkRisk(ctx, where, inPosition);
  await checkTriggerIndices(ctx, where, inPosition);
  // each account's order indices: the open one holds its orders Created or InPosition, the finished one the rest
  const byId = (ids: string[]) => [...ids].sort((x, y) => Number(x) - Number(y));
  // and a user's orders, the union of their accounts' indices, exactly theirs in id order
  const index = new FuturesOrderIndex(ctx.redis, FuturesKeyring.of(ctx.keys));
  for (const [u, want] of byUser) expect([where, u, await index.userOrderIds(u)]).toEqual([where, u, want]);
  for (const [a, want] of indexed) {
    const finished = await ctx.redis.zrange(k.futuresAccountOrders(a), '0', '-1');
    const open = await ctx.redis.zrange(k.futuresAccountOpenOrders(a), '0', '-1');
    // every order in exactly one of the two: the open ones in the open index, the others in the finished one
    const wantOpen = new Set(want.open);
    expect([where, a, byId(finished), byId(open)]).toEqual([where, a, byId(want.all.filter((id) => !wantOpen.has(id))), byId(want.open)]);
  }

  let locked = 0;
  for (const a of accounts) {
    const [b, l] = await ctx.redis.hmget(k.futuresAccount(a), 'balance', 'locked');
    expect([where, a, Number(b) >= 0, Number(l) >= 0]).toEqual([where, a, true, true]);
    locked += Number(l);
  }
  // an account locks exactly the margins and reservations of its orders
  expect([where, locked]).toEqual([where, lockedByOrders]);
  // deposits = wallets + accounts + fees + insurance + pnl pool (test/support/money.ts)
  expect([where, await moneyHeld(ctx.redis, ctx.shards.all(), 'USDT')]).toEqual([where, ledger.total('USDT')]);
}

/** BTC_USDT: one tick of one lot is 1000 minor units, maintenance 0.5 % (config/markets.json). */
const NS = 1000n;
const MMR_PPM = 5000n;

/** Liquidation price (the isolated-margin formulas of docs/futures.md) in exact integers, toward safety. */
function liqTicks(side: string, cost: bigint, lots: bigint, margin: bigint): bigint {
  if (side === 'buy') {
    const num = (cost * NS - margin) * 1_000_000n;
    const den = lots * NS * (1_000_000n - MMR_PPM);
    return num <= 0n ? 0n : (num + den - 1n) / den;
  }
  return ((cost * NS + margin) * 1_000_000n) / (lots * NS * (1_000_000n + MMR_PPM));
}

/**
 * Issue 10: the insurance fund is never negative; every position's liquidation price follows from its
 * current margin; after the sweep no open position has margin + pnl at or below maintenance at the mark.
 */
/**
 * The trigger indices hold exactly the positions in force, each at its record's liquidation price and
 * TP/SL: the two liquidation indices together are the positions in force (funding and the contract
 * stats read them as such), each once. The former set of positions in force is never written.
 */
async function checkTriggerIndices(ctx: Ctx, where: string, inPosition: [string, Record<string, string>][]): Promise<void> {
  const want: Record<string, string[]> = { liqL: [], liqS: [], tpL: [], tpS: [], slL: [], slS: [] };
  for (const [id, h] of inPosition) {
    const s = h.side === 'buy' ? 'L' : 'S';
    want[`liq${s}`].push(`${id}@${h.liq}`);
    if (h.tp !== '') want[`tp${s}`].push(`${id}@${h.tp}`);
    if (h.sl !== '') want[`sl${s}`].push(`${id}@${h.sl}`);
  }
  for (const [index, entries] of Object.entries(want)) {
    const raw = await ctx.redis.zrange(ctx.keys.futuresTrigger(PAIR, index as FuturesTriggerIndex), '0', '-1', 'WITHSCORES');
    const got: string[] = [];
    for (let i = 0; i < raw.length; i += 2) got.push(`${raw[i]}@${raw[i + 1]}`);
    expect([where, index, got.sort()]).toEqual([where, index, [...entries].sort()]);
  }
  const inForce = [
    ...(await ctx.redis.zrange(ctx.keys.futuresTrigger(PAIR, 'liqL'), '0', '-1')),
    ...(await ctx.redis.zrange(ctx.keys.futuresTrigger(PAIR, 'liqS'), '0', '-1')),
  ].sort();
  expect([where, 'in force', inForce]).toEqual([where, 'in force', inPosition.map(([id]) => id).sort()]);
  expect([where, 'no set', await ctx.redis.exists(ctx.keys.futuresActive(PAIR))]).toEqual([where, 'no set', 0]);
}

async function checkRisk(ctx: Ctx, where: string, inPosition: [string, Record<string, string>][]): Promise<void> {
  expect([where, BigInt((await ctx.redis.hget(ctx.keys.insuranceFund(), 'USDT')) ?? '0') >= 0n]).toEqual([where, true]);
  const pair = await ctx.markets.store.getPair('futures', PAIR);
  const markText = pair ? await ctx.futures.prices.markTicks(pair) : null;
  for (const [id, h] of inPosition) {
    const [cost, lots, margin] = [BigInt(h.cost), BigInt(h.openQty), BigInt(h.margin)];
    expect([where, id, h.liq]).toEqual([where, id, liqTicks(h.side, cost, lots, margin).toString()]);
    if (markText) {
      const mark = BigInt(markText);
      const pnl = (mark * lots - cost) * NS * (h.side === 'buy' ? 1n : -1n);
      const maintenance = mark * lots * NS * MMR_PPM; // x 1e6
      expect([where, id, (margin + pnl) * 1_000_000n > maintenance]).toEqual([where, id, true]);
    }
  }
}

