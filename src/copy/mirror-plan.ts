import BigNumber from 'bignumber.js';
import { decimal, fromMinor } from '../domain/decimal';
import { futuresParams } from '../domain/futures';
import type { Pair } from '../domain/market';
import type { CreateFuturesRequest } from '../futures';
import type { SubscriptionRecord } from './copy-store';
import { maxSlippage } from './copy-slave.service';

/**
 * What one master event asks of one subscription, decided from data read beforehand (pure: no
 * reads, no writes). The fan-out (copy-fanout.ts) reads a chunk of subscriptions at once, asks this
 * for each, and carries the decisions out in batches. Today's semantics (DESIGN 4, docs/copy-trading.md):
 * a master order is mirrored once it stops working; a master close closes the mirrored position.
 */

/** Why a master order was not mirrored into a subscription (recorded per subscription). */
export const SkipReason = {
  BelowMinimum: 'BELOW_PAIR_MINIMUM',
  Slippage: 'SLIPPAGE',
  NoMargin: 'NO_MARGIN',
  MasterPositionClosed: 'MASTER_POSITION_CLOSED',
} as const;

/** `copy:<masterOrderId>:<subscriptionId>`: the follower order's clientOrderId, so a replay places nothing twice. */
export const copyClientOrderId = (masterOrderId: string | number, subId: string | number) => `copy:${masterOrderId}:${subId}`;

export interface BookLevel {
  price: number;
  quantity: number;
}

/** The master's side of one event, read once for every subscription of a chunk. */
export interface OpenContext {
  /** the master order's hash */
  masterOrder: Record<string, string>;
  pair: Pair;
  /** master equity, minor units, read once per event so every chunk sizes alike */
  equity: BigNumber;
  /** the stream entry's timestamp */
  at: number;
  book: { asks: BookLevel[]; bids: BookLevel[] };
}

export type OpenDecision =
  | { kind: 'place'; request: CreateFuturesRequest }
  | { kind: 'skip'; reason: string }
  /** nothing to do: mirrored already, or not the subscription's to copy */
  | { kind: 'none' };

/**
 * A master order that stopped working, for one subscription: a market order of
 * filled × margin / master equity, rounded down to the lot, or the reason it is skipped.
 * `mirrored`: the follower's order with this clientOrderId exists already.
 */
export function planOpen(ctx: OpenContext, sub: SubscriptionRecord, mirrored: boolean): OpenDecision {
  const h = ctx.masterOrder;
  // an entry older than the subscription (a replay) is not the subscription's to copy
  if (sub.active !== '1' || Number(sub.opened) > ctx.at || mirrored) return { kind: 'none' };
  if (h.status !== '50') return { kind: 'skip', reason: SkipReason.MasterPositionClosed };
  const margin = new BigNumber(sub.margin);
  if (margin.lte(0) || ctx.equity.lte(0)) return { kind: 'skip', reason: SkipReason.NoMargin };
  const { pair } = ctx;
  const { lotLots, ns } = futuresParams(pair);
  const entry = new BigNumber(h.ecost || 0).div(h.filled);
  const raw = new BigNumber(h.filled).times(margin).div(ctx.equity).integerValue(BigNumber.ROUND_FLOOR);
  const lots = raw.minus(raw.mod(lotLots));
  const notional = entry.times(lots).times(ns).shiftedBy(-pair.quoteDecimals);
  if (lots.lte(0) || lots.shiftedBy(-pair.digitsAmount).lt(decimal(pair.minBaseAmount)) || notional.lt(decimal(pair.minQuoteAmount))) {
    return { kind: 'skip', reason: SkipReason.BelowMinimum };
  }
  const amount = fromMinor(lots.toFixed(0), pair.digitsAmount);
  const isLong = h.side === 'buy';
  if (!bookHolds(ctx.book, isLong, amount, entry.shiftedBy(-pair.digitsPrice), maxSlippage(sub))) {
    return { kind: 'skip', reason: SkipReason.Slippage };
  }
  return {
    kind: 'place',
    request: {
      isMarket: true, isLong, amount, currencyPairCode: pair.code, futuresAccountId: Number(sub.acct),
      clientOrderId: copyClientOrderId(h.id, sub.id), takeProfit: trigger(h.tp, pair.digitsPrice), stopLoss: trigger(h.sl, pair.digitsPrice),
    },
  };
}

/**
 * A master position closed, for one subscription: close the position mirrored from it while it is
 * open (or cancel it while unfilled). `follower`: the follower's order hash with the copy clientOrderId, if any.
 */
export function planClose(sub: SubscriptionRecord, follower: Record<string, string> | null): { kind: 'close'; order: Record<string, string> } | { kind: 'none' } {
  if (sub.active !== '1' || !follower || (follower.status !== '50' && follower.status !== '10')) return { kind: 'none' };
  return { kind: 'close', order: follower };
}

/**
 * The slippage guard (DESIGN 4): the book holds `amount` within `percent` of the master's fill
 * price (asks at most that much above it for a long, bids at most that much below for a short).
 * The book is read once per chunk, before its orders, so one that moves in between can still fill them worse.
 */
export function bookHolds(book: OpenContext['book'], isLong: boolean, amount: number, masterPrice: BigNumber, percent: number): boolean {
  const limit = masterPrice.times(isLong ? 100 + percent : 100 - percent).div(100);
  let left = new BigNumber(amount);
  for (const level of isLong ? book.asks : book.bids) {
    if (isLong ? limit.lt(level.price) : limit.gt(level.price)) return false;
    left = left.minus(level.quantity);
    if (left.lte(0)) return true;
  }
  return false;
}

/** The master's TP or SL as a price for the follower's order (null when none). */
const trigger = (ticks: string | undefined, digits: number) => (ticks && ticks !== '0' ? fromMinor(ticks, digits) : null);
