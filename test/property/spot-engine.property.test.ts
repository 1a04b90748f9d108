import fc from 'fast-check';
import { AppError } from '../../src/domain/errors';
import type { Pair } from '../../src/domain/market';
import type { StpMode } from '../../src/domain/order';
import { decodeSpotOrder } from '../../src/spot/spot-order-record';
import { parseEvents } from '../../src/platform/market-event';
import { testContext } from '../support/harness';
import {
  ReferenceMatcher,
  type RefOrder,
  type RefPlace,
  type RefPlaceResult,
  type RefSide,
  type RefType,
} from '../support/reference-matcher';

/**
 * Random sequences of spot placements and cancels from three accounts, run through the Lua engine
 * and through the reference matcher in test/support; after every step both must agree on trades,
 * book, orders and balances, the book must not be crossed and no currency may appear or vanish.
 * One context for the file and a fresh pair, currencies and users per sequence keep runs isolated
 * without paying for a new connection and script load each time.
 */

type Ctx = Awaited<ReturnType<typeof testContext>>;
let ctx: Ctx;

beforeAll(async () => {
  ctx = await testContext();
});
afterAll(async () => ctx.cleanup());

const USERS = 3;

interface MarketSetup {
  quoteDecimals: number;
  baseDecimals: number;
  makerPpm: number;
  takerPpm: number;
  /** Per user: quote in units of price 5 x 1 lot, base in lots, plus a remainder below one unit. */
  deposits: { quoteUnits: number; baseLots: number; dust: number }[];
}

type Step =
  | {
      kind: 'place';
      user: number;
      side: RefSide;
      type: RefType;
      price: number;
      amount: number;
      budgetUnits: number;
      budgetDust: number;
      postOnly: boolean;
      stp: StpMode;
    }
  | { kind: 'cancel'; user: number; pick: number; byOwner: boolean }
  | { kind: 'cancelAll'; user: number };

// Odd fee rates make the round-up visible; 0 and 1 ppm sit at the edges.
const feePpm = fc.constantFrom(0, 1, 1000, 2500, 3333, 333_333);

const setupArb: fc.Arbitrary<MarketSetup> = fc.record({
  // digits of price and amount are 0, so quoteScale = 10^quoteDecimals and baseScale = 10^baseDecimals
  quoteDecimals: fc.integer({ min: 0, max: 2 }),
  baseDecimals: fc.integer({ min: 0, max: 3 }),
  makerPpm: feePpm,
  takerPpm: feePpm,
  deposits: fc.array(
    fc.record({
      quoteUnits: fc.integer({ min: 0, max: 40 }),
      baseLots: fc.integer({ min: 0, max: 25 }),
      dust: fc.integer({ min: 0, max: 99 }),
    }),
    { minLength: USERS, maxLength: USERS },
  ),
});

const user = fc.integer({ min: 0, max: USERS - 1 });

// Prices 1-6 ticks and amounts 1-5 lots so that orders meet each other often.
const placeArb: fc.Arbitrary<Step> = fc.record({
  kind: fc.constant('place' as const),
  user,
  side: fc.constantFrom<RefSide>('buy', 'sell'),
  type: fc.oneof(
    { weight: 3, arbitrary: fc.constant<RefType>('limit') },
    { weight: 1, arbitrary: fc.constant<RefType>('market') },
  ),
  price: fc.integer({ min: 1, max: 6 }),
  amount: fc.integer({ min: 1, max: 5 }),
  budgetUnits: fc.integer({ min: 0, max: 40 }),
  budgetDust: fc.integer({ min: 0, max: 99 }),
  postOnly: fc.oneof(
    { weight: 3, arbitrary: fc.constant(false) },
    { weight: 1, arbitrary: fc.constant(true) },
  ),
  stp: fc.oneof(
    { weight: 3, arbitrary: fc.constant<StpMode>('NONE') },
    { weight: 3, arbitrary: fc.constantFrom<StpMode>('EXPIRE_TAKER', 'EXPIRE_MAKER', 'EXPIRE_BOTH') },
  ),
});

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 16, arbitrary: placeArb },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('cancel' as const),
      user,
      pick: fc.nat(),
      byOwner: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancelAll' as const), user }) },
);

let sequenceNo = 0;

/** How often each rule came up over all sequences, so a generator that stops reaching one fails. */
const seen: Record<string, number> = {};
const saw = (what: string) => {
  seen[what] = (seen[what] ?? 0) + 1;
};

const s = (v: bigint | number) => String(v);
const num = (v: string | undefined) => BigInt(v ?? '0');

function codeOf(e: unknown): string {
  if (e instanceof AppError) return e.code;
  throw e;
}

/** One sequence: a fresh market and accounts, then every step through both matchers. */
async function runSequence(setup: MarketSetup, steps: Step[]): Promise<void> {
  const n = ++sequenceNo;
  const base = `PB${n}`;
  const quote = `PQ${n}`;
  const users = Array.from({ length: USERS }, (_, i) => `prop${n}u${i}`);
  const quoteScale = 10n ** BigInt(setup.quoteDecimals);
  const baseScale = 10n ** BigInt(setup.baseDecimals);
  const pair: Pair = {
    id: 0,
    kind: 'spot',
    code: `${base}_${quote}`,
    baseCurrencyCode: base,
    quoteCurrencyCode: quote,
    digitsPrice: 0,
    digitsAmount: 0,
    minBaseAmount: 1,
    minQuoteAmount: 1,
    makerFee: setup.makerPpm / 1e6,
    takerFee: setup.takerPpm / 1e6,
    isActive: true,
    baseDecimals: setup.baseDecimals,
    quoteDecimals: setup.quoteDecimals,
  };
  await ctx.markets.store.createCurrency({ code: base, name: base, decimals: setup.baseDecimals });
  await ctx.markets.store.createCurrency({ code: quote, name: quote, decimals: setup.quoteDecimals });
  const { id } = await ctx.markets.store.createPair(pair);
  pair.id = id;

  const ref = new ReferenceMatcher({
    base,
    quote,
    quoteScale,
    baseScale,
    makerFeePpm: BigInt(setup.makerPpm),
    takerFeePpm: BigInt(setup.takerPpm),
  });
  const total = new Map<string, bigint>([
    [base, 0n],
    [quote, 0n],
  ]);
  for (let i = 0; i < USERS; i++) {
    const d = setup.deposits[i];
    const deposits: [string, bigint][] = [
      [quote, BigInt(d.quoteUnits) * 5n * quoteScale + (BigInt(d.dust) % quoteScale)],
      [base, BigInt(d.baseLots) * baseScale + (BigInt(d.dust) % baseScale)],
    ];
    for (const [cur, amount] of deposits) {
      if (amount === 0n) continue;
      await ctx.scripts.run('deposit', [ctx.keys.walletAvailable(users[i]), ctx.keys.userEvents()], [cur, s(amount), users[i], 0, 1000]);
      ref.deposit(users[i], cur, amount);
      total.set(cur, (total.get(cur) as bigint) + amount);
    }
  }

  const engineIdOf = new Map<number, string>();
  const refIdOf = new Map<string, number>();
  const placedRefIds: number[] = [];
  const stream = { last: '-' };
  const market: Market = { pair, base, quote, users, total, ref, refIdOf, engineIdOf, stream };

  for (let i = 0; i < steps.length; i++) {
    const step = steps[i];
    try {
      // orders that could change in this step: every live one, plus the one a cancel names
      const watched: number[] = [];
      for (const o of ref.orders.values())
        if (o.status === 'open' || o.status === 'partiallyFilled') watched.push(o.id);
      let expectedTrades: string[][] = [];
      let placed: { refId: number; order: Record<string, string> } | undefined;

      if (step.kind === 'place') {
        const req = placeRequest(step, users, quoteScale);
        const want = ref.place(req);
        countPlacement(ref, req, want, watched);
        const [got, state] = await Promise.all([enginePlace(pair, req), readState(market, watched)]);
        if (!want.accepted) {
          if (!('code' in got))
            throw new Error(`engine accepted order ${got.order.id}, reference rejected: ${want.reasons}`);
          // when several reasons apply, which one the engine names is its own choice
          expect(want.reasons).toContain(got.code);
        } else {
          if ('code' in got) throw new Error(`engine rejected with ${got.code}, reference accepted`);
          engineIdOf.set(want.order.id, got.order.id);
          refIdOf.set(got.order.id, want.order.id);
          placedRefIds.push(want.order.id);
          placed = { refId: want.order.id, order: got.order };
          expectedTrades = want.trades.map((t) => [
            s(t.price),
            s(t.qty),
            s(t.takerId),
            s(t.makerId),
            t.takerSide,
            s(t.takerFee),
            s(t.makerFee),
          ]);
        }
        expectSameState(market, state, watched, expectedTrades, placed);
      } else if (step.kind === 'cancel') {
        if (placedRefIds.length === 0) continue;
        const target = placedRefIds[step.pick % placedRefIds.length];
        const caller = step.byOwner ? (ref.orders.get(target) as RefOrder).user : users[step.user];
        if (!watched.includes(target)) watched.push(target);
        const want = ref.cancel(caller, target);
        saw(`cancel ${want ?? 'ok'}`);
        const [got, state] = await Promise.all([
          ctx.spot.engine
            .cancel(caller, { id: engineIdOf.get(target) as string, pair: pair.code }, Date.now())
            .then((o) => (o.status === 'cancelled' ? null : `answered status ${o.status}`), codeOf),
          readState(market, watched),
        ]);
        expect(got).toBe(want);
        expectSameState(market, state, watched, expectedTrades, placed);
      } else {
        const want = ref.cancelAll(users[step.user]);
        saw(want.length ? 'cancelAll some' : 'cancelAll none');
        const [got, state] = await Promise.all([
          ctx.spot.engine.cancelAll(users[step.user], pair.code, Date.now()),
          readState(market, watched),
        ]);
        expect(got.map((id) => refIdOf.get(id))).toEqual(want);
        expectSameState(market, state, watched, expectedTrades, placed);
      }
    } catch (e) {
      if (e instanceof Error) e.message = `sequence ${n}, step ${i}: ${JSON.stringify(step)}\n${e.message}`;
      throw e;
    }
  }

  // Every order as stored, finished ones included: a new order is compared above as the placement
  // answered it, and this holds the stored hash to the same values.
  try {
    expectSameState(market, await readState(market, placedRefIds), placedRefIds, []);
  } catch (e) {
    if (e instanceof Error) e.message = `sequence ${n}, final state of all orders\n${e.message}`;
    throw e;
  }
}

/**
 * Shrinking replays sequences of 100 steps, which takes long. Once the shrinking has had its time,
 * every further candidate passes at once, so fast-check settles on the smallest failure found so
 * far instead of running into jest's timeout with nothing reported.
 */
const SHRINK_BUDGET_MS = 20_000;
let firstFailureAt: number | undefined;

async function property(setup: MarketSetup, steps: Step[]): Promise<void> {
  if (firstFailureAt !== undefined && Date.now() - firstFailureAt > SHRINK_BUDGET_MS) return;
  try {
    await runSequence(setup, steps);
  } catch (e) {
    firstFailureAt ??= Date.now();
    throw e;
  }
}

interface Market {
  pair: Pair;
  base: string;
  quote: string;
  users: string[];
  /** What was deposited per currency: all that may ever exist of it. */
  total: Map<string, bigint>;
  ref: ReferenceMatcher;
  refIdOf: Map<string, number>;
  engineIdOf: Map<number, string>;
  /** The last event stream entry already read. */
  stream: { last: string };
}

function countPlacement(
  ref: ReferenceMatcher,
  req: RefPlace,
  res: RefPlaceResult,
  liveBefore: number[],
): void {
  if (!res.accepted) {
    for (const r of res.reasons) saw(r);
    return;
  }
  if (res.trades.length) saw('trade');
  if (res.trades.some((t) => ref.orders.get(t.makerId)?.user === req.user)) saw('self-trade allowed');
  saw(`${req.type} ${req.side} ${res.order.status}`);
  if (req.postOnly && req.type === 'market') saw('market postOnly ignored');
  // only self-trade prevention expires a resting order during a placement
  if (liveBefore.some((id) => ref.orders.get(id)?.status === 'expired')) saw('maker expired');
}

function placeRequest(step: Extract<Step, { kind: 'place' }>, users: string[], quoteScale: bigint): RefPlace {
  const req: RefPlace = {
    user: users[step.user],
    side: step.side,
    type: step.type,
    postOnly: step.postOnly,
    stp: step.stp,
  };
  if (step.type === 'limit') req.price = BigInt(step.price);
  if (step.type === 'market' && step.side === 'buy') {
    // a budget that is often not a whole number of lots at any price, so leftovers come back
    const budget = BigInt(step.budgetUnits) * quoteScale + (BigInt(step.budgetDust) % quoteScale);
    req.budget = budget === 0n ? 1n : budget;
  } else {
    req.amount = BigInt(step.amount);
  }
  return req;
}

function enginePlace(
  pair: Pair,
  req: RefPlace,
): Promise<{ code: string } | { order: Record<string, string> }> {
  return ctx.spot.engine
    .place({
      userId: req.user,
      pair,
      side: req.side,
      type: req.type,
      priceTicks: req.price === undefined ? undefined : s(req.price),
      amountLots: req.amount === undefined ? undefined : s(req.amount),
      quoteBudget: req.budget === undefined ? undefined : s(req.budget),
      // sent as asked even for market orders: the engine must ignore it there (rule 4)
      postOnly: req.postOnly,
      stp: req.stp,
      clientOrderId: null,
      timestamp: Date.now(),
    })
    .then(
      (r) => ({ order: r.order }),
      (e: unknown) => ({ code: codeOf(e) }),
    );
}

const ORDER_FIELDS = ['status', 'filled', 'filledQuote', 'fee', 'rsv'];

/**
 * Reads the engine's state of the market. Called in the same tick as the step's engine call and
 * after it: one connection carries both and Redis runs a connection's commands in order, so these
 * reads see the state right after the step, and the step costs one round trip instead of two. Were
 * the order ever lost, the reads would show the state before the step and the comparison would
 * fail, not pass.
 */
function readState(m: Market, watched: number[]) {
  const k = ctx.keys;
  const r = ctx.redis;
  const code = m.pair.code;
  return Promise.all([
    ctx.marketData.books.snapshot('spot', code, 0),
    r.zrange(k.book('spot', code, 'bids'), '0', '-1'),
    r.zrange(k.book('spot', code, 'asks'), '0', '-1'),
    Promise.all(
      m.users.map((u) => Promise.all([r.hgetall(k.walletAvailable(u)), r.hgetall(k.walletReserved(u))])),
    ),
    // fees of this sequence's currencies only: the hash holds every earlier sequence's too
    r.hmget(k.feesCollected(), m.base, m.quote),
    r.xrange(k.events('spot', code), m.stream.last === '-' ? '-' : `(${m.stream.last}`, '+'),
    Promise.all(
      watched.map(async (id) => {
        const engineId = m.engineIdOf.get(id) as string;
        const order = decodeSpotOrder(engineId, await r.hgetall(k.order(engineId)));
        return ORDER_FIELDS.map((f) => order?.[f] ?? null);
      }),
    ),
  ]);
}

/**
 * Compares the engine's state after a step with the reference. Both sides become plain views and
 * jest's diff runs only when they differ: 20,000 deep compares would otherwise dominate the run.
 */
function expectSameState(
  m: Market,
  [snapshot, bids, asks, wallets, fees, entries, orders]: Awaited<ReturnType<typeof readState>>,
  watched: number[],
  expectedTrades: string[][],
  placed?: { refId: number; order: Record<string, string> },
): void {
  const refId = (engineId: string) =>
    String(m.refIdOf.get(String(Number(engineId))) ?? `unknown engine order ${engineId}`);
  const trades: string[][] = [];
  for (const [entryId, fields] of entries) {
    m.stream.last = entryId;
    const events = parseEvents(fields[fields.indexOf('ev') + 1]);
    for (const ev of events) {
      if (ev.e === 'trade') trades.push([ev.p, ev.q, refId(ev.tk), refId(ev.mk), ev.side, ev.tf, ev.mf]);
    }
  }

  const balances: string[][] = [];
  const held = new Map<string, bigint>();
  let negative = false;
  m.users.forEach((u, i) => {
    for (const cur of [m.base, m.quote]) {
      const avail = num(wallets[i][0][cur]);
      const rsv = num(wallets[i][1][cur]);
      if (avail < 0n || rsv < 0n) negative = true;
      held.set(cur, (held.get(cur) ?? 0n) + avail + rsv);
      balances.push([u, cur, s(avail), s(rsv)]);
    }
  });
  const bestBid = snapshot.bids[0]?.[0];
  const bestAsk = snapshot.asks[0]?.[0];
  const engineOrders = orders.map((h, i) => [s(watched[i]), ...h]);
  // the new order as the placement answered it, which is its state after matching
  if (placed) engineOrders.push([s(placed.refId), ...ORDER_FIELDS.map((f) => placed.order[f])]);

  const engine = {
    trades,
    levels: { bids: snapshot.bids, asks: snapshot.asks },
    queues: { bids: bids.map(refId), asks: asks.map(refId) },
    crossed: bestBid !== undefined && bestAsk !== undefined && BigInt(bestBid) >= BigInt(bestAsk),
    orders: engineOrders,
    balances,
    negative,
    fees: fees.map((f) => s(num(f ?? undefined))),
    // wallets plus collected fees hold exactly what was deposited, per currency
    conserved: [m.base, m.quote].map((cur, i) => s((held.get(cur) ?? 0n) + num(fees[i] ?? undefined))),
  };

  const ref = m.ref;
  const levels = (side: 'bids' | 'asks') => ref.levels(side).map(([p, q]) => [s(p), s(q)]);
  const expected = {
    trades: expectedTrades,
    levels: { bids: levels('bids'), asks: levels('asks') },
    queues: { bids: ref.queue('bids').map(s), asks: ref.queue('asks').map(s) },
    crossed: false,
    orders: [...watched, ...(placed ? [placed.refId] : [])].map((id) => {
      const o = ref.orders.get(id) as RefOrder;
      return [s(id), o.status, s(o.filled), s(o.filledQuote), s(o.fee), s(o.reserved)];
    }),
    balances: m.users.flatMap((u) =>
      [m.base, m.quote].map((cur) => [
        u,
        cur,
        s(ref.balance(u, cur).available),
        s(ref.balance(u, cur).reserved),
      ]),
    ),
    negative: false,
    fees: [m.base, m.quote].map((cur) => s(ref.fees.get(cur) ?? 0n)),
    conserved: [m.base, m.quote].map((cur) => s(m.total.get(cur) as bigint)),
  };
  if (JSON.stringify(engine) !== JSON.stringify(expected)) expect(engine).toEqual(expected);
}

describe('spot engine against the reference matcher', () => {
  it('agrees on trades, book and balances over random sequences, and conserves every currency', async () => {
    await fc.assert(
      fc.asyncProperty(setupArb, fc.array(stepArb, { minLength: 100, maxLength: 100 }), property),
      { numRuns: 200 },
    );
    // every rule the sequences are meant to exercise must actually have come up
    const expected = [
      'trade',
      'self-trade allowed',
      'maker expired',
      'ORDER_POST_ONLY_WOULD_TAKE',
      'INSUFFICIENT_BALANCE',
      'limit buy open',
      'limit sell partiallyFilled',
      'limit buy filled',
      'limit sell expired',
      'market buy filled',
      'market buy expired',
      'market sell filled',
      'market sell expired',
      'market postOnly ignored',
      'cancel ok',
      'cancel ORDER_NOT_FOUND',
      'cancel ORDER_NOT_OPEN',
      'cancelAll some',
    ];
    expect(expected.filter((what) => !seen[what])).toEqual([]);
    // 20,000 steps take about 30 s here; the margin is for a loaded CI machine
  }, 180_000);
});
