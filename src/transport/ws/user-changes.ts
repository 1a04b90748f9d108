import { fromMinor } from '../../domain/decimal';
import type { MarketKind, Pair } from '../../domain/market';
import type { MarketEntry, MarketEvent } from '../../platform/market-event';
import type { WalletPart } from './user-balances';

/** Why a balance changed (docs/market-data.md#private-user-stream-wsuser; a fill's fee moves with its trade, so there is no separate fee). */
export type BalanceReason = 'order' | 'trade' | 'deposit' | 'transfer' | 'funding' | 'liquidation' | 'copy';

/** A fill as the private stream sends it: everything is in the trade event, nothing is read. */
export interface FillFrame {
  tradeId: number;
  orderId: number;
  kind: MarketKind;
  currencyPairCode: string;
  side: 'buy' | 'sell';
  price: number;
  amount: number;
  fee: number;
  feeCurrency: string;
  liquidity: 'maker' | 'taker';
  timestamp: string;
}

/**
 * One state of an order as the engine wrote it (an `st` event, docs/events.md): the record's
 * `state` text, its version last; `fixed`, the record's fixed text, when the same entry placed it.
 */
export interface OrderState {
  kind: MarketKind;
  id: string;
  state: string;
  fixed?: string;
}

/**
 * What one stream entry changed for one user, in the order it happened. Orders (futures positions
 * are their opening orders' records), fills and the wallet come whole from the events; futures
 * accounts are read after.
 */
export interface UserChanges {
  /** Every state each order went through, in the engine's order. */
  orders: OrderState[];
  fills: FillFrame[];
  /** Wallet currencies whose balance changed, with the reason. */
  wallet: Map<string, BalanceReason>;
  /** The wallet on the entry's shard after the command, per currency it moved (its balance events). */
  parts: WalletPart[];
  /** The user's futures accounts changed (which one the events do not always say). */
  accounts?: BalanceReason;
}

/** A reason said first stays; only a plain order reservation gives way to a more telling one. */
function stronger(had: BalanceReason | undefined, next: BalanceReason): BalanceReason {
  return had === undefined || had === 'order' ? next : had;
}

/**
 * Collects, per user for whom `wanted` holds, what a stream entry changed: each order state and
 * fill whole from its event, the balances to read. Positions (futures) are their orders' states.
 */
export class UserChangeSet {
  readonly byUser = new Map<string, UserChanges>();

  /** `shard`: the engine shard whose stream the entries come from (its balance sequence). */
  constructor(
    private readonly wanted: (userId: string) => boolean,
    private readonly shard = 0,
  ) {}

  /** A new order's fixed text, from its `new` event until its first `st` (the same entry's). */
  private readonly placed = new Map<string, string>();

  private of(u: string | undefined): UserChanges | undefined {
    if (!u || !this.wanted(u)) return undefined;
    let c = this.byUser.get(u);
    if (!c) {
      c = { orders: [], fills: [], wallet: new Map(), parts: [] };
      this.byUser.set(u, c);
    }
    return c;
  }

  /** An `st` event: the order's state as the command wrote it. */
  private orderState(kind: MarketKind, e: MarketEvent): void {
    const fixed = this.placed.get(e.id);
    if (fixed !== undefined) this.placed.delete(e.id);
    const c = this.of(e.u);
    if (c) c.orders.push({ kind, id: e.id, state: e.state, ...(fixed !== undefined ? { fixed } : {}) });
  }

  wallet(u: string | undefined, currency: string, reason: BalanceReason): void {
    const c = this.of(u);
    if (c) c.wallet.set(currency, stronger(c.wallet.get(currency), reason));
  }

  /**
   * A balance event: the user's wallet on this shard after the command (`a` available, `rs`
   * reserved, minor units), a transfer in flight (`xo`, `xa`) or arrived (`xi`, `xa`);
   * lua/includes/userEvents.lua.
   */
  private walletState(e: MarketEvent, reason: BalanceReason): void {
    const c = this.of(e.u);
    if (!c) return;
    c.wallet.set(e.c, stronger(c.wallet.get(e.c), reason));
    c.parts.push({
      shard: this.shard,
      bs: Number(e.bs),
      currency: e.c,
      ...(e.a ? { available: e.a } : {}),
      ...(e.rs ? { reserved: e.rs } : {}),
      ...(e.xo ? { out: { id: e.xo, amount: e.xa } } : {}),
      ...(e.xi ? { arrived: { id: e.xi, amount: e.xa } } : {}),
    });
  }

  accounts(u: string | undefined, reason: BalanceReason): void {
    const c = this.of(u);
    if (c) c.accounts = stronger(c.accounts, reason);
  }

  fill(u: string | undefined, frame: () => FillFrame): void {
    const c = this.of(u);
    if (c) c.fills.push(frame());
  }

  /** One entry of a market stream (docs/events.md, docs/futures.md). */
  addMarketEntry(kind: MarketKind, pair: Pair, entry: MarketEntry): void {
    for (const e of entry.events) {
      if (e.e === 'st') this.orderState(kind, e);
      else if (e.e === 'new') this.placed.set(e.id, e.fixed);
      else if (kind === 'spot') this.spotEvent(pair, e, entry.ts);
      else this.futuresEvent(pair, e, entry.ts);
    }
  }

  /** One entry of a shard's user stream: money that moved outside the markets (docs/market-data.md). */
  addUserEntry(entry: MarketEntry): void {
    for (const e of entry.events) {
      if (e.e === 'wallet') this.walletState(e, e.r as BalanceReason);
      else if (e.e === 'account') this.accounts(e.u, e.r as BalanceReason);
    }
  }

  private spotEvent(pair: Pair, e: MarketEvent, ts: number): void {
    const both = (u: string | undefined, reason: BalanceReason) => {
      this.wallet(u, pair.baseCurrencyCode, reason);
      this.wallet(u, pair.quoteCurrencyCode, reason);
    };
    switch (e.e) {
      case 'accepted':
        this.wallet(e.u, e.side === 'buy' ? pair.quoteCurrencyCode : pair.baseCurrencyCode, 'order');
        break;
      case 'trade':
        for (const role of ['taker', 'maker'] as const) {
          const u = role === 'taker' ? e.tu : e.mu;
          this.fill(u, () => fillFrame('spot', pair, e, role, ts));
          both(u, 'trade');
        }
        break;
      case 'done':
        both(e.u, 'order');
        break;
      case 'bal':
        // after the entry's orders: its reason is theirs (a fill's `trade` over a reservation's `order`)
        this.walletState(e, 'order');
        break;
    }
  }

  private futuresEvent(pair: Pair, e: MarketEvent, ts: number): void {
    switch (e.e) {
      case 'accepted':
      case 'done':
        this.accounts(e.u, 'order');
        break;
      case 'trade':
        for (const role of ['taker', 'maker'] as const) {
          const u = role === 'taker' ? e.tu : e.mu;
          this.fill(u, () => fillFrame('futures', pair, e, role, ts));
          this.accounts(u, role === 'taker' && e.tt === '3' ? 'liquidation' : 'trade');
        }
        break;
      case 'takeover':
        this.accounts(e.u, 'liquidation');
        break;
      case 'adl':
        this.accounts(e.u, 'liquidation');
        this.accounts(e.au, 'liquidation');
        break;
      case 'fund':
        this.accounts(e.u, 'funding');
        break;
    }
  }
}

/** One side of a trade event as a fill: spot fees are in the currency received, futures fees in the quote. */
function fillFrame(kind: MarketKind, pair: Pair, t: MarketEvent, role: 'taker' | 'maker', ts: number): FillFrame {
  const taker = role === 'taker';
  const side = taker ? (t.side as 'buy' | 'sell') : t.side === 'buy' ? 'sell' : 'buy';
  const feeInBase = kind === 'spot' && side === 'buy';
  return {
    tradeId: Number(t.id),
    orderId: Number(kind === 'spot' ? (taker ? t.tk : t.mk) : taker ? t.tpos : t.mpos),
    kind,
    currencyPairCode: pair.code,
    side,
    price: fromMinor(t.p, pair.digitsPrice),
    amount: fromMinor(t.q, pair.digitsAmount),
    fee: fromMinor(taker ? t.tf : t.mf, feeInBase ? pair.baseDecimals : pair.quoteDecimals),
    feeCurrency: feeInBase ? pair.baseCurrencyCode : pair.quoteCurrencyCode,
    liquidity: role,
    timestamp: new Date(ts).toISOString(),
  };
}
