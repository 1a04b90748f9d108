/**
 * The one place that names Redis keys. Engine state (books, orders, wallets, accounts, positions and
 * the market event streams) lives under one hash tag per engine shard, so each engine script stays in
 * one cluster slot. Derived data (candles, deal history, tickers) carries its own tags.
 *
 * Scripts get every key their caller can know in KEYS. Lua builds only the keys it learns while
 * running (a maker's order, wallet and account, a position found by a sweep) with
 * lua/includes/keys.lua from the same engine prefix; test/integration/keys.test.ts holds the two together.
 */
import type { MarketKind } from '../../domain/market';
import { shardTag } from './shard-tags';

export type { MarketKind };
export type BookSide = 'bids' | 'asks';
export type FuturesTriggerIndex = 'tpL' | 'tpS' | 'slL' | 'slS' | 'liqL' | 'liqS';

export class Keys {
  /** Prefix of every engine key, hash tag included: `ex:{e0}:` (shard-tags.ts). Passed to scripts as ARGV[1]. */
  readonly engine: string;

  constructor(
    readonly prefix: string,
    readonly shard = 0,
  ) {
    this.engine = `${prefix}:{${shardTag(shard)}}:`;
  }

  // reference data
  currencies(): string {
    return `${this.engine}currencies`;
  }
  currency(code: string): string {
    return `${this.engine}currency:${code}`;
  }
  pairs(kind: MarketKind): string {
    return `${this.engine}pairs:${kind}`;
  }
  pair(kind: MarketKind, code: string): string {
    return `${this.engine}pair:${kind}:${code}`;
  }
  pairIds(): string {
    return `${this.engine}ids:pair`;
  }
  /** Stream of pair creations (`kind`, `code`, `id`), appended by createPair: gateways and dispatchers tail it. */
  marketsStream(): string {
    return `${this.engine}markets`;
  }

  // id counters
  orderIds(): string {
    return `${this.engine}ids:order`;
  }
  tradeIds(): string {
    return `${this.engine}ids:trade`;
  }

  // order book
  book(kind: MarketKind, pair: string, side: BookSide): string {
    return `${this.engine}book:${kind}:${pair}:${side}`;
  }
  levels(kind: MarketKind, pair: string, side: BookSide): string {
    return `${this.engine}levels:${kind}:${pair}:${side}`;
  }
  levelQty(kind: MarketKind, pair: string, side: BookSide): string {
    return `${this.engine}lvlqty:${kind}:${pair}:${side}`;
  }
  bookSeq(kind: MarketKind, pair: string): string {
    return `${this.engine}bookseq:${kind}:${pair}`;
  }
  events(kind: MarketKind, pair: string): string {
    return `${this.engine}events:${kind}:${pair}`;
  }
  /**
   * The shard's user event stream: money that moves outside a market (deposits, transfers, copy
   * transitions), appended by the script that moves it; the private user stream tails it with the
   * market streams (docs/market-data.md).
   */
  userEvents(): string {
    return `${this.engine}uevents`;
  }
  /**
   * The shard's balance sequence: one INCR per command that changes a wallet, carried by its
   * balance events and read with the wallets by the private stream's snapshot
   * (lua/includes/userEvents.lua, docs/market-data.md "Exact balances").
   */
  balanceSeq(): string {
    return `${this.engine}uevents:seq`;
  }
  lastPrice(kind: MarketKind, pair: string): string {
    return `${this.engine}last:${kind}:${pair}`;
  }

  // trade history (lua/includes/tradeHistory.lua writes it; docs/market-data.md)
  /** Every trade of a market kept TRADE_HISTORY_DAYS: zset, score = trade id, member = the record. */
  tradeHistory(kind: MarketKind, pair: string): string {
    return `${this.engine}trades:${kind}:${pair}`;
  }
  /** Time index of the history: zset, score = command ms, member = its first trade id (16 digits). */
  tradeTimes(kind: MarketKind, pair: string): string {
    return `${this.engine}tradetimes:${kind}:${pair}`;
  }
  /** A user's trades on a market: zset, score = trade id, member = `<id>:t` (taker) or `<id>:m` (maker). */
  userTrades(kind: MarketKind, pair: string, userId: string): string {
    return `${this.engine}utrades:${kind}:${pair}:${userId}`;
  }
  /** Retention of the trade history in ms (TRADE_HISTORY_DAYS), read by the engine scripts. */
  tradeHistoryRetention(): string {
    return `${this.engine}config:tradeHistoryMs`;
  }

  // orders
  order(id: string | number): string {
    return `${this.engine}order:${id}`;
  }
  userOrders(userId: string, kind: MarketKind): string {
    return `${this.engine}uorders:${kind}:${userId}`;
  }
  userOpenOrders(userId: string, kind: MarketKind, pair: string): string {
    return `${this.engine}uopen:${kind}:${pair}:${userId}`;
  }
  clientOrderIds(userId: string): string {
    return `${this.engine}clid:${userId}`;
  }

  // money
  walletAvailable(userId: string): string {
    return `${this.engine}wallet:${userId}:avail`;
  }
  walletReserved(userId: string): string {
    return `${this.engine}wallet:${userId}:rsv`;
  }
  feesCollected(): string {
    return `${this.engine}fees`;
  }
  /** Deposits credited on this shard, hash by currency (the reconciler's right-hand side). */
  deposits(): string {
    return `${this.engine}deposits`;
  }

  // transfers between a user's home ledger and escrow on other shards (docs/architecture.md, "Engine shards: money")
  /** The record of a transfer sent from this shard (hash: user, cur, amount, from, to, state, entry). */
  transfer(id: string): string {
    return `${this.engine}xfer:${id}`;
  }
  /** Transfers sent from this shard and not yet acknowledged (stream: id, user, cur, amount, from, to). */
  outbox(): string {
    return `${this.engine}outbox`;
  }
  /** A transfer credited on this shard (string: its amount), so a second delivery credits nothing. */
  transferCredit(id: string): string {
    return `${this.engine}xcredit:${id}`;
  }
  /** A user's transfers sent from this shard and not yet acknowledged (hash id -> `cur|amount|to`). */
  userTransfersPending(userId: string): string {
    return `${this.engine}xpend:${userId}`;
  }
  /** Per user, a count of the transfer steps on this shard: merged reads see whether one ran meanwhile. */
  transferVersions(): string {
    return `${this.engine}xver`;
  }
  /** Per user, when a top-up last credited escrow on this shard (hash user -> ms): sweeps take idle escrow. */
  escrowTouched(): string {
    return `${this.engine}escrow:touched`;
  }

  /** The record of one exactly-once operation (lua/includes/operationRecord.lua): its reply, or a fence. */
  operation(opId: string): string {
    return `${this.engine}op:${opId}`;
  }

  // futures (lua/includes/keys.lua builds the same names)
  futuresAccountIds(): string {
    return `${this.engine}ids:facct`;
  }
  futuresAccount(id: string | number): string {
    return `${this.engine}facct:${id}`;
  }
  userFuturesAccounts(userId: string): string {
    return `${this.engine}ufaccts:${userId}`;
  }
  /**
   * Opening orders of a futures account that have ended (zset, score = member = order id); with the open
   * index below they are all its orders (lua/includes/futures/accountIndex.lua).
   */
  futuresAccountOrders(accountId: string | number): string {
    return `${this.engine}facctorders:${accountId}`;
  }
  /** Opening orders of a futures account that are Created (10) or InPosition (50): same layout. */
  futuresAccountOpenOrders(accountId: string | number): string {
    return `${this.engine}facctopen:${accountId}`;
  }
  /** A futures account's trading aggregates (hash, lua/includes/futures/accountStats). */
  futuresStats(accountId: string | number): string {
    return `${this.engine}fstats:${accountId}`;
  }
  /** A futures account's closed positions' net per UTC day number (hash). */
  futuresDaily(accountId: string | number): string {
    return `${this.engine}fdaily:${accountId}`;
  }
  /** Reference counts of a futures account's days (hash: `a:<day>` trading days, `c:<day>` closed positions). */
  futuresDays(accountId: string | number): string {
    return `${this.engine}fdays:${accountId}`;
  }
  /** The ranked futures accounts (hash acct -> "<base>:<decimals>"), or their ranking by `by`. */
  futuresRank(by?: 'roi' | 'pnl' | 'days' | 'dd' | 'all'): string {
    return by ? `${this.engine}frank:${by}` : `${this.engine}frank`;
  }
  /** Marks a finished backfill of the futures aggregates (its value: the version). */
  futuresStatsBackfill(): string {
    return `${this.engine}fstats-backfill`;
  }
  /** clientOrderId -> order id of the user's futures orders (spot keeps its own). */
  futuresClientOrderIds(userId: string): string {
    return `${this.engine}fclid:${userId}`;
  }
  /** Trigger indices of a futures market: score = price in ticks, member = position id. */
  futuresTrigger(pair: string, index: FuturesTriggerIndex): string {
    return `${this.engine}ftrig:${pair}:${index}`;
  }
  /**
   * Was the set of positions in force on a futures market; no longer written or read (the liquidation
   * indices liqL and liqS hold exactly those positions). Still KEYS[22] of the futures scripts, unused,
   * so six scripts keep their key numbering; a store from before may hold a stale one (deletable).
   */
  futuresActive(pair: string): string {
    return `${this.engine}factive:${pair}`;
  }
  /** Insurance fund, hash by currency. */
  insuranceFund(): string {
    return `${this.engine}finsurance`;
  }
  /** Counterparty of realized futures pnl, hash by currency (docs/futures.md). */
  futuresPnlPool(): string {
    return `${this.engine}fpool`;
  }
  /** Admin index price of a futures market, in its ticks. */
  indexPrice(pair: string): string {
    return `${this.engine}index:futures:${pair}`;
  }
  /** Index sources of a futures market: hash source -> "ticks:ms" (the spot impact mid is computed, not stored). */
  indexSources(pair: string): string {
    return `${this.engine}isrc:futures:${pair}`;
  }
  /** Stored mark price of a futures market (hash: p, index, sec, ts), refreshed every second. */
  markPrice(pair: string): string {
    return `${this.engine}mark:futures:${pair}`;
  }
  /** The last 30 one-second samples of (futures mid - index), ticks, newest first (mark price P2). */
  basisSamples(pair: string): string {
    return `${this.engine}basis:futures:${pair}`;
  }
  /** Last funding round of a futures market (hash: round, rate, mark, ts; premium samples pn, pw, pslot). */
  fundingState(pair: string): string {
    return `${this.engine}funding:${pair}`;
  }

  /**
   * Money ledger of one copy subscription (netIn, commission, shared, hwm, feeTs), under the engine
   * tag: the copy Lua scripts change it in the same step as the money it accounts for.
   */
  copyLedger(subscriptionId: string | number): string {
    return `${this.engine}copyledger:${subscriptionId}`;
  }

  // copy trading records: under the engine tag, so each copy transition is one engine script over
  // its records and the money it moves (docs/copy-trading.md)
  private copy(): string {
    return `${this.engine}copy:`;
  }
  /** Subscriptions between beginCopyFinish and completeCopyFinish (a worker resumes them). */
  copyFinishing(): string {
    return `${this.copy()}finishing`;
  }
  /**
   * Subscriptions started at this shard (the follower's home, not shard 0) and not linked to their
   * master on shard 0 yet (lua/copy/linkCopySubscription): a worker resumes them.
   */
  copyStarting(): string {
    return `${this.copy()}starting`;
  }
  /** Masters between beginMasterClose and completeMasterClose (a worker resumes them). */
  copyMastersClosing(): string {
    return `${this.copy()}closing`;
  }
  /** Id counter of copy subscriptions started at this shard (from the shard's id base, src/domain/shard-ids.ts). */
  copySubscriptionIds(): string {
    return `${this.copy()}ids:sub`;
  }
  /** A master strategy, keyed by its futures account id (which is also the master's id). */
  copyMaster(accountId: string | number): string {
    return `${this.copy()}master:${accountId}`;
  }
  /** Every master ever created (zset, score = created ms). */
  copyMasters(): string {
    return `${this.copy()}masters`;
  }
  /** Users owning at least one active master: the mirror's cheap first test of an event. */
  copyMasterUsers(): string {
    return `${this.copy()}masterusers`;
  }
  userCopyMasters(userId: string): string {
    return `${this.copy()}umasters:${userId}`;
  }
  /** Users holding at least one subscription: the mirror's cheap first test of a follower's `done` event. */
  copyFollowerUsers(): string {
    return `${this.copy()}followerusers`;
  }
  /** Futures account id of a subscription -> the subscription's id (hash). */
  copySubscriptionAccounts(): string {
    return `${this.copy()}subaccts`;
  }
  /** A copy slave, keyed by its futures account id (which is also the slave's id). */
  copySlave(accountId: string | number): string {
    return `${this.copy()}slave:${accountId}`;
  }
  userCopySlaves(userId: string): string {
    return `${this.copy()}uslaves:${userId}`;
  }
  /** The copy leaderboard's own rankings of open masters (zsets, src/platform/redis/ranking.ts). */
  copyBoard(by: 'followers' | 'aum' | 'newest'): string {
    return `${this.copy()}board:${by}`;
  }
  /** Marks a finished backfill of the leaderboard (its value: the version). */
  copyBoardBackfill(): string {
    return `${this.copy()}board-backfill`;
  }
  copySubscription(id: string | number): string {
    return `${this.copy()}sub:${id}`;
  }
  /** Subscription ids of a master (zset, score = opened ms). */
  copyMasterSubscriptions(masterAccountId: string | number): string {
    return `${this.copy()}msubs:${masterAccountId}`;
  }
  /** Subscription ids of a slave (zset, score = opened ms). */
  copySlaveSubscriptions(slaveAccountId: string | number): string {
    return `${this.copy()}ssubs:${slaveAccountId}`;
  }
  /** The active subscription of a slave to a master (string, the id): at most one. */
  copyActiveSubscription(masterAccountId: string | number, slaveAccountId: string | number): string {
    return `${this.copy()}active:${masterAccountId}:${slaveAccountId}`;
  }
  /** Master orders a subscription did not mirror (hash: master order id -> JSON with the reason). */
  copySkips(subscriptionId: string | number): string {
    return `${this.copy()}skips:${subscriptionId}`;
  }

  /**
   * Candles of this shard's markets: one hash tag per engine shard, apart from the engine's (so
   * candle work does not load the engine's master), shared by the shard's markets so a gateway
   * reads every candle update stream of a shard in one XREAD (docs/architecture.md, "Shard map").
   */
  private candleData(kind: MarketKind, pair: string): string {
    return `${this.prefix}:{md:${this.shard}}:${kind}:${pair}:`;
  }
  /** Hash of every candle of a market: field `<period>:<open ms>`. */
  candles(kind: MarketKind, pair: string): string {
    return `${this.candleData(kind, pair)}candles`;
  }
  /** Stream entries already folded into the candles (zset, score = entry ms): replays change nothing. */
  candlesApplied(kind: MarketKind, pair: string): string {
    return `${this.candleData(kind, pair)}candles:applied`;
  }
  /** Stream of candles as each update left them, read by the websocket gateways. */
  candleEvents(kind: MarketKind, pair: string): string {
    return `${this.candleData(kind, pair)}candles:events`;
  }
  /** Where a market's candle keys lived before shards, one hash tag per market (src/market-data/candle-store-move.ts). */
  legacyCandleKeys(kind: MarketKind, pair: string): { candles: string; applied: string; events: string } {
    const candles = `${this.prefix}:{md:${kind}:${pair}}:candles`;
    return { candles, applied: `${candles}:applied`, events: `${candles}:events` };
  }

  /** A user's home shard (string), under a tag of the user's own: written once, at first use. */
  home(userId: string): string {
    return `${this.prefix}:{u:${userId}}:home`;
  }

  /**
   * A client's Idempotency-Key (hashed), under a hash tag per user: the request's fingerprint and
   * its first answer (lua/platform/claimIdempotencyKey-2.lua).
   */
  idempotency(userId: string, keyHash: string): string {
    return `${this.prefix}:{idem:${userId}}:${keyHash}`;
  }
  /** Held while one attempt of a keyed request runs; lapses by itself. */
  idempotencyLease(userId: string, keyHash: string): string {
    return `${this.idempotency(userId, keyHash)}:lease`;
  }

  /**
   * A user's order rate limiter: both buckets' windows in one value (lua/platform/consumeRateLimit-1.lua).
   * Not the name of the counters before it (`rl:orders:`), which a release still running them during
   * a rolling deploy would INCR.
   */
  rateLimit(userId: string): string {
    return `${this.prefix}:rl:windows:${this.rateLimitSubject(userId)}`;
  }
  /**
   * A user's subject in the rate limiter's key: a hash tag per user, so the limiter's writes
   * spread over the cluster instead of sitting on one slot (and on an engine shard's master).
   */
  rateLimitSubject(userId: string): string {
    return `{rl:${userId}}`;
  }

  /** BullMQ's own prefix; each queue name carries its hash tag, as BullMQ advises for cluster. */
  bullPrefix(): string {
    return `${this.prefix}:bull`;
  }

  /** Which deployment writes under this prefix: a fingerprint of its token key (bin/deployment-claim.ts). */
  deployment(): string {
    return `${this.prefix}:deployment`;
  }
}
