/**
 * A spot matcher in plain TypeScript, written from the order-book rules and numbers of docs/api-contract.md
 * and not from the Lua, so the property test in test/property has an independent oracle to hold
 * the engine against. Engine units throughout, as bigint: prices in ticks, amounts in lots, money
 * in currency minor units. Simple over fast: the book is two sorted arrays.
 */

export type RefSide = 'buy' | 'sell';
export type RefType = 'limit' | 'market';
export type RefStatus = 'open' | 'partiallyFilled' | 'filled' | 'cancelled' | 'expired';

/** Self-trade prevention as bit flags: the stricter intent of two orders is their bitwise OR. */
export const REF_STP = { NONE: 0, EXPIRE_TAKER: 1, EXPIRE_MAKER: 2, EXPIRE_BOTH: 3 } as const;
export type RefStpMode = keyof typeof REF_STP;

export interface RefMarket {
  base: string;
  quote: string;
  /** Quote minor units per tick per lot. */
  quoteScale: bigint;
  /** Base minor units per lot. */
  baseScale: bigint;
  makerFeePpm: bigint;
  takerFeePpm: bigint;
}

export interface RefOrder {
  id: number;
  user: string;
  side: RefSide;
  type: RefType;
  /** Limit price in ticks; undefined for market orders. */
  price?: bigint;
  /** Lots; undefined for a market buy, which is sized by its quote budget. */
  amount?: bigint;
  budget?: bigint;
  stp: number;
  filled: bigint;
  filledQuote: bigint;
  /** Fee paid so far, in the currency the order receives. */
  fee: bigint;
  /** What the order still holds reserved, in the currency it pays with. */
  reserved: bigint;
  status: RefStatus;
}

export interface RefTrade {
  price: bigint;
  qty: bigint;
  takerId: number;
  makerId: number;
  takerSide: RefSide;
  takerFee: bigint;
  makerFee: bigint;
}

export interface RefPlace {
  user: string;
  side: RefSide;
  type: RefType;
  price?: bigint;
  amount?: bigint;
  budget?: bigint;
  postOnly: boolean;
  stp: RefStpMode;
}

export type RefRejection = 'ORDER_POST_ONLY_WOULD_TAKE' | 'INSUFFICIENT_BALANCE';

export type RefPlaceResult =
  { accepted: true; order: RefOrder; trades: RefTrade[] } | { accepted: false; reasons: RefRejection[] };

export interface RefBalance {
  available: bigint;
  reserved: bigint;
}

const PPM = 1_000_000n;

/** What the exchange collects rounds up. */
const feeOf = (amount: bigint, ppm: bigint): bigint => (amount * ppm + PPM - 1n) / PPM;

const isLive = (o: RefOrder) => o.status === 'open' || o.status === 'partiallyFilled';

export class ReferenceMatcher {
  readonly orders = new Map<number, RefOrder>();
  readonly fees = new Map<string, bigint>();
  /** Resting orders, best first: bids by price descending, asks ascending, each level by arrival. */
  private bids: RefOrder[] = [];
  private asks: RefOrder[] = [];
  private balances = new Map<string, Map<string, RefBalance>>();
  private nextId = 1;

  constructor(readonly market: RefMarket) {}

  deposit(user: string, currency: string, amount: bigint): void {
    this.balance(user, currency).available += amount;
  }

  balance(user: string, currency: string): RefBalance {
    let byCur = this.balances.get(user);
    if (!byCur) {
      byCur = new Map();
      this.balances.set(user, byCur);
    }
    let b = byCur.get(currency);
    if (!b) {
      b = { available: 0n, reserved: 0n };
      byCur.set(currency, b);
    }
    return b;
  }

  /** Aggregated levels, best first, as [price, total lots]. */
  levels(side: 'bids' | 'asks'): [bigint, bigint][] {
    const out: [bigint, bigint][] = [];
    for (const o of side === 'bids' ? this.bids : this.asks) {
      const left = (o.amount as bigint) - o.filled;
      const last = out[out.length - 1];
      if (last && last[0] === o.price) last[1] += left;
      else out.push([o.price as bigint, left]);
    }
    return out;
  }

  /** Resting order ids in matching order. */
  queue(side: 'bids' | 'asks'): number[] {
    return (side === 'bids' ? this.bids : this.asks).map((o) => o.id);
  }

  place(req: RefPlace): RefPlaceResult {
    const m = this.market;
    const payCurrency = req.side === 'buy' ? m.quote : m.base;
    let toReserve: bigint;
    if (req.side === 'sell') toReserve = (req.amount as bigint) * m.baseScale;
    else if (req.type === 'market') toReserve = req.budget as bigint;
    else toReserve = (req.price as bigint) * (req.amount as bigint) * m.quoteScale;

    const reasons: RefRejection[] = [];
    // post-only means "only ever a maker"; a market order cannot be one, so the flag does not apply
    if (req.postOnly && req.type === 'limit') {
      const best = this.opposite(req.side)[0];
      if (best && this.reaches(req.side, req.price, best.price as bigint))
        reasons.push('ORDER_POST_ONLY_WOULD_TAKE');
    }
    if (this.balance(req.user, payCurrency).available < toReserve) reasons.push('INSUFFICIENT_BALANCE');
    if (reasons.length) return { accepted: false, reasons };

    const taker: RefOrder = {
      id: this.nextId++,
      user: req.user,
      side: req.side,
      type: req.type,
      price: req.price,
      amount: req.type === 'market' && req.side === 'buy' ? undefined : req.amount,
      budget: req.type === 'market' && req.side === 'buy' ? req.budget : undefined,
      stp: REF_STP[req.stp],
      filled: 0n,
      filledQuote: 0n,
      fee: 0n,
      reserved: 0n,
      status: 'open',
    };
    this.orders.set(taker.id, taker);
    this.reserve(taker.user, payCurrency, toReserve);
    taker.reserved = toReserve;

    const trades: RefTrade[] = [];
    const end = this.match(taker, trades);

    const left = taker.amount === undefined ? undefined : taker.amount - taker.filled;
    if (taker.type === 'limit' && (end === 'bookEmpty' || end === 'priceLimit') && (left as bigint) > 0n) {
      taker.status = taker.filled > 0n ? 'partiallyFilled' : 'open';
      this.rest(taker);
    } else {
      if (left === 0n) taker.status = 'filled';
      // a market buy that has bought something and cannot afford one more lot has used its budget
      else if (end === 'budgetSpent' && taker.filled > 0n) taker.status = 'filled';
      else taker.status = 'expired';
      this.release(taker);
    }
    return { accepted: true, order: taker, trades };
  }

  cancel(user: string, id: number): 'ORDER_NOT_FOUND' | 'ORDER_NOT_OPEN' | null {
    const o = this.orders.get(id);
    // another user's order is indistinguishable from a missing one, so ids leak nothing
    if (!o || o.user !== user) return 'ORDER_NOT_FOUND';
    if (!isLive(o)) return 'ORDER_NOT_OPEN';
    this.unrest(o);
    o.status = 'cancelled';
    this.release(o);
    return null;
  }

  /** Cancels every live order of the user, returning their ids ascending. */
  cancelAll(user: string): number[] {
    const mine = [...this.bids, ...this.asks].filter((o) => o.user === user).map((o) => o.id);
    mine.sort((a, b) => a - b);
    for (const id of mine) this.cancel(user, id);
    return mine;
  }

  private match(
    taker: RefOrder,
    trades: RefTrade[],
  ): 'filled' | 'bookEmpty' | 'priceLimit' | 'selfTrade' | 'budgetSpent' {
    const m = this.market;
    const book = this.opposite(taker.side);
    for (;;) {
      if (taker.amount !== undefined && taker.filled === taker.amount) return 'filled';
      const maker = book[0];
      if (!maker) return 'bookEmpty';
      const price = maker.price as bigint;
      if (taker.type === 'limit' && !this.reaches(taker.side, taker.price, price)) return 'priceLimit';

      if (maker.user === taker.user) {
        const mode = taker.stp | maker.stp;
        if (mode !== REF_STP.NONE) {
          if (mode & REF_STP.EXPIRE_MAKER) {
            this.unrest(maker);
            maker.status = 'expired';
            this.release(maker);
          }
          if (mode & REF_STP.EXPIRE_TAKER) return 'selfTrade';
          continue;
        }
      }

      let qty = (maker.amount as bigint) - maker.filled;
      if (taker.amount !== undefined && taker.amount - taker.filled < qty) qty = taker.amount - taker.filled;
      if (taker.budget !== undefined) {
        const affordable = taker.reserved / (price * m.quoteScale);
        if (affordable < qty) qty = affordable;
        if (qty === 0n) return 'budgetSpent';
      }

      const buyer = taker.side === 'buy' ? taker : maker;
      const seller = taker.side === 'buy' ? maker : taker;
      const quote = price * qty * m.quoteScale;
      const base = qty * m.baseScale;
      const buyerFee = feeOf(base, buyer === taker ? m.takerFeePpm : m.makerFeePpm);
      const sellerFee = feeOf(quote, seller === taker ? m.takerFeePpm : m.makerFeePpm);

      // a limit buy holds limit x lots; paying the maker's lower price frees the difference at once
      const buyerHeld = buyer.budget !== undefined ? quote : (buyer.price as bigint) * qty * m.quoteScale;
      const bq = this.balance(buyer.user, m.quote);
      bq.reserved -= buyerHeld;
      bq.available += buyerHeld - quote;
      buyer.reserved -= buyerHeld;
      this.balance(buyer.user, m.base).available += base - buyerFee;

      this.balance(seller.user, m.base).reserved -= base;
      seller.reserved -= base;
      this.balance(seller.user, m.quote).available += quote - sellerFee;

      this.fees.set(m.base, (this.fees.get(m.base) ?? 0n) + buyerFee);
      this.fees.set(m.quote, (this.fees.get(m.quote) ?? 0n) + sellerFee);

      for (const o of [buyer, seller]) {
        o.filled += qty;
        o.filledQuote += quote;
      }
      buyer.fee += buyerFee;
      seller.fee += sellerFee;

      trades.push({
        price,
        qty,
        takerId: taker.id,
        makerId: maker.id,
        takerSide: taker.side,
        takerFee: taker === buyer ? buyerFee : sellerFee,
        makerFee: maker === buyer ? buyerFee : sellerFee,
      });

      if (maker.filled === maker.amount) {
        this.unrest(maker);
        maker.status = 'filled';
        this.release(maker);
      } else {
        maker.status = 'partiallyFilled';
      }
    }
  }

  /** Would a `side` order limited at `limit` (undefined: market) trade at `price`? */
  private reaches(side: RefSide, limit: bigint | undefined, price: bigint): boolean {
    if (limit === undefined) return true;
    return side === 'buy' ? price <= limit : price >= limit;
  }

  private opposite(side: RefSide): RefOrder[] {
    return side === 'buy' ? this.asks : this.bids;
  }

  private rest(o: RefOrder): void {
    const book = o.side === 'buy' ? this.bids : this.asks;
    const p = o.price as bigint;
    // behind every order at an equal or better price: arrival order within a level
    const better = (x: RefOrder) => (o.side === 'buy' ? (x.price as bigint) >= p : (x.price as bigint) <= p);
    let i = 0;
    while (i < book.length && better(book[i])) i++;
    book.splice(i, 0, o);
  }

  private unrest(o: RefOrder): void {
    const book = o.side === 'buy' ? this.bids : this.asks;
    const i = book.indexOf(o);
    if (i >= 0) book.splice(i, 1);
  }

  private reserve(user: string, currency: string, amount: bigint): void {
    const b = this.balance(user, currency);
    b.available -= amount;
    b.reserved += amount;
  }

  /** An order that leaves the book or ends gives back whatever it still holds. */
  private release(o: RefOrder): void {
    const b = this.balance(o.user, o.side === 'buy' ? this.market.quote : this.market.base);
    b.reserved -= o.reserved;
    b.available += o.reserved;
    o.reserved = 0n;
  }
}
