import type { ChainableCommander } from 'ioredis';
import { Histogram } from 'prom-client';
import type { FuturesKeyring } from './futures-keyring';
import type { Scripts } from '../platform/redis/scripts';
import { hashOf, unwrap, type PlaceReply, type ScriptReply } from '../platform/redis/reply';
import { STP_FLAGS, type Side, type StpMode } from '../domain/order';
import { inKeyedRequest, newOperation } from '../platform/redis/operation';
import { FuturesScriptKeys } from './futures-script-keys';
import { GroupCommit } from '../platform/group-commit';
import { futuresOrderOf } from './futures-order-record';
import { randomInt } from 'node:crypto';
import { SHARD_ID_SPAN, shardIdBase } from '../domain/shard-ids';

/** A futures order in engine units: prices in ticks, amounts in lots (decimal strings). */
export interface CreateFuturesInput {
  userId: string;
  pairCode: string;
  accountId: string;
  side: Side;
  isMarket: boolean;
  priceTicks?: string;
  amountLots: string;
  tpTicks?: string;
  slTicks?: string;
  postOnly: boolean;
  /** Immediate or cancel: a limit order that fills what it can at once and never rests. */
  ioc?: boolean;
  stp: StpMode;
  clientOrderId?: string | null;
  timestamp: number;
}

/** Orders of one market that one createFuturesOrders call places at most (group commit, docs/performance.md). */
export const MAX_CREATE_BATCH = 64;

/**
 * Who a futures account is for: its owner's own trading, a copy subscription (`copy`), a copy
 * master (`master`). The last two keep trading aggregates (lua/includes/futures/accountStats.lua).
 */
export type FuturesAccountKind = 'own' | 'copy' | 'master';

/** How many orders each createFuturesOrders call carried: how much the group commit is batching. */
export const createBatchOrders = new Histogram({
  name: 'futures_create_batch_orders',
  help: 'Futures orders per createFuturesOrders script call (group commit)',
  // one bucket per size up to 8, so the bench reads the batch medians exactly where HTTP load puts them
  buckets: [1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 24, 32, 48, 64, 256, 1024],
});

type Call = { keys: string[]; args: (string | number)[] };

/** The fields of an opening order that name its keys (they never change once it is placed). */
export interface FuturesOrderRef {
  id: string;
  pair: string;
  acct: string;
}

/**
 * Typed calls into the futures Lua scripts (lua/futures/): argument builders in KEYS/ARGV order (KEYS
 * from FuturesScriptKeys, the market's built once per pair), reply decoders.
 */
/** What createFuturesOrders answers for one order: its id, clientOrderId and status. */
export type FuturesPlaceReply = PlaceReply<{ id: string; clid: string; status: string }>;

/** createFuturesOrders' reply to one order, `{'OK'|'DUP', id, clientOrderId, status}` (lua/futures/createFuturesOrders). */
export function decodePlace(reply: ScriptReply): FuturesPlaceReply {
  const r = unwrap(reply);
  return { duplicate: r[0] === 'DUP', order: { id: String(r[1]), clid: String(r[2] ?? ''), status: String(r[3]) } };
}

/**
 * An order's options as createFuturesOrders reads them (its header): '' for a plain limit order, the
 * usual one, which then costs the call no more arguments; else one text for all of them (each
 * argument is a string Redis makes and hashes when the call starts).
 */
function createOptions(o: CreateFuturesInput): string {
  const flag = o.ioc ? 'I' : o.postOnly ? '1' : '0';
  const tp = o.tpTicks ?? '';
  const sl = o.slTicks ?? '';
  const clid = o.clientOrderId ?? '';
  if (!o.isMarket && flag === '0' && o.stp === 'NONE' && tp === '' && sl === '' && clid === '') return '';
  return `${o.isMarket ? '1' : '0'}${flag}${STP_FLAGS[o.stp]}|${tp}|${sl}|${clid}`;
}

/**
 * How much of a position a close takes: null all of it; `lots` that many; `share` the fraction
 * closed / before of its open quantity as it stands when the script runs, down to the lot (copy
 * trading's mirror of a master's partial close: concurrent mirrors compose, issue 24 finding 7).
 */
export type CloseSize = null | { lots: string } | { share: { closed: string; before: string; lotLots: number } };

/** A non-negative integer as its shortest decimal text: what the Lua's own printing gives. */
const CANONICAL_INT = /^(0|[1-9][0-9]*)$/;

export class FuturesEngine {
  private readonly scriptKeys: FuturesScriptKeys;
  private readonly commit: GroupCommit<CreateFuturesInput, ScriptReply>;

  /** Each market's scripts run on its shard (`keys.ofPair`); accounts are created and funded at their owner's home (`keys.ofAccount`). */
  constructor(
    private readonly keys: FuturesKeyring,
    private readonly scripts: Scripts,
    private readonly streamMaxLen: number,
  ) {
    this.scriptKeys = new FuturesScriptKeys(keys);
    // a batch is one operation of its own, whoever's request happened to start it
    this.commit = new GroupCommit((orders) => this.createBatch(orders, true), MAX_CREATE_BATCH);
  }

  /** `fresh`: under an operation of its own (a group commit's batch), else the call's (runOnceFor). */
  private createBatch(orders: CreateFuturesInput[], fresh: boolean): Promise<ScriptReply[]> {
    createBatchOrders.observe(orders.length);
    const { keys, args } = this.createArgs(orders);
    const shard = this.keys.ofPair(orders[0].pairCode);
    return fresh
      ? this.scripts.runOnce<ScriptReply[]>('createFuturesOrders', keys, args, newOperation(shard))
      : this.scripts.runOnceFor<ScriptReply[]>('createFuturesOrders', keys, args, shard);
  }

  /** KEYS and ARGV of createFuturesOrders for orders of one pair, in lua/futures/createFuturesOrders-22+4n.lua's order. */
  createArgs(orders: CreateFuturesInput[]): Call {
    const pair = orders[0].pairCode;
    const keys = [...this.scriptKeys.market(pair)];
    const args: (string | number)[] = [this.keys.ofPair(pair).engine, pair, this.streamMaxLen];
    for (const o of orders) {
      if (o.pairCode !== pair) throw new Error('one createFuturesOrders call takes orders of one pair');
      // the script uses these as they come (book levels are keyed by the price's text): digits only
      if (!CANONICAL_INT.test(o.amountLots) || (o.priceTicks != null && !CANONICAL_INT.test(o.priceTicks))) {
        throw new Error(`createFuturesOrders takes canonical integer prices and amounts: ${o.priceTicks} ${o.amountLots}`);
      }
      keys.push(...this.scriptKeys.createOrderItem(pair, o.userId, o.accountId));
      args.push(o.userId, o.side, o.priceTicks ?? '', o.amountLots, o.accountId, o.timestamp, createOptions(o));
    }
    return { keys, args };
  }

  /**
   * Places one order; orders arriving together on one market share a script call (group commit).
   * An order of a keyed request (Idempotency-Key) without a clientOrderId is placed alone, under the
   * operation derived from the key, so a retry finds it; with a clientOrderId its registry entry is the record.
   */
  async create(o: CreateFuturesInput): Promise<FuturesPlaceReply> {
    const alone = !o.clientOrderId && inKeyedRequest();
    return decodePlace(alone ? (await this.createBatch([o], false))[0] : await this.commit.submit(o.pairCode, o));
  }

  /**
   * Places `orders` (one pair) in one createFuturesOrders call of their own, outside the group
   * commit: a caller that already holds a batch (copy trading's fan-out of one master fill) pays
   * one script call for all of it. One reply per order, each exactly as if the order came alone.
   */
  async createMany(orders: CreateFuturesInput[]): Promise<ScriptReply[]> {
    if (orders.length === 0) return [];
    return this.createBatch(orders, false);
  }

  /**
   * Adds one createFuturesOrders call for `orders` (one pair) to a pipeline, in the exactly-once form
   * `create` sends; its reply is one per order.
   */
  queueCreate(pipeline: ChainableCommander, orders: CreateFuturesInput[]): void {
    const { keys, args } = this.createArgs(orders);
    this.scripts.queueOnce(pipeline, 'createFuturesOrders', keys, args, newOperation(this.keys.ofPair(orders[0].pairCode)));
  }

  /**
   * `order`: the caller's order as read before (its pair and account name the script's keys);
   * `size`: how much of the position to close (CloseSize), null for all of it; `clientOrderId`: a
   * repeat of it does nothing (answers the record as it stands).
   */
  async close(
    userId: string,
    order: FuturesOrderRef,
    limitTicks: string | null,
    timestamp: number,
    size: CloseSize = null,
    clientOrderId = '',
  ): Promise<Record<string, string>> {
    const lots = size && 'lots' in size ? size.lots : '';
    const share = size && 'share' in size ? [size.share.closed, size.share.before, size.share.lotLots] : ['', '', ''];
    const reply = unwrap(
      await this.scripts.runOnceFor<ScriptReply>(
        'closeFuturesPosition',
        this.scriptKeys.close(order.pair, userId, order.id, order.acct),
        [
          this.keys.ofPair(order.pair).engine, userId, limitTicks === null ? '1' : '0', limitTicks ?? '', timestamp, this.streamMaxLen,
          order.pair, order.acct, lots, clientOrderId, ...share,
        ],
        this.keys.ofPair(order.pair),
      ),
    );
    return futuresOrderOf(hashOf(reply[1]));
  }

  async updateTrigger(
    userId: string,
    order: Pick<FuturesOrderRef, 'id' | 'pair'>,
    which: 'tp' | 'sl',
    ticks: string | null,
    timestamp: number,
  ): Promise<Record<string, string>> {
    const reply = unwrap(
      await this.scripts.runOnceFor<ScriptReply>(
        'updateFuturesTrigger',
        this.scriptKeys.updateTrigger(order.pair, order.id),
        [this.keys.ofPair(order.pair).engine, userId, which, ticks ?? '', timestamp, order.pair, this.streamMaxLen],
        this.keys.ofPair(order.pair),
      ),
    );
    return futuresOrderOf(hashOf(reply[1]));
  }

  /**
   * Registers a new account on `shard`, the user's home (docs/futures.md, "Futures on engine shards").
   * `copy`: the account belongs to a copy subscription from birth (createFuturesAccount ARGV[7]);
   * `master`: a copy master's. Both keep trading aggregates from birth (ARGV[8], flag `stats`).
   * Ids: with one engine shard the counter's, as always; with several, shard × 10^14 plus a random
   * number below 10^14 (src/domain/shard-ids.ts: the id names the shard of its record), drawn
   * again in the rare case the script finds it taken. A random id is never handed out again after
   * data loss at home rewound the store, as a counter's would be, while copies of the account made
   * on other shards before the loss may still hold it (docs/futures.md).
   */
  async createAccount(
    userId: string, name: string, currency: string, leverage: number, timestamp: number, kind: FuturesAccountKind = 'own', shard = 0,
  ) {
    // the account's leverage text is copied into its orders' records as it stands (lua/includes/futures/orderRecord)
    if (!Number.isSafeInteger(leverage) || leverage < 1) throw new Error(`createFuturesAccount takes a positive integer leverage: ${leverage}`);
    const k = this.keys.all()[shard];
    for (let attempt = 1; ; attempt++) {
      const id = this.newAccountId(shard);
      const reply = unwrap(
        await this.scripts.runOnceFor<ScriptReply>(
          'createFuturesAccount',
          [k.futuresAccountIds(), k.userFuturesAccounts(userId)],
          [k.engine, userId, name, currency, leverage, timestamp, kind === 'copy' ? '1' : '0', kind === 'own' ? '0' : '1', id],
          k,
        ),
      );
      if (reply[0] !== 'TAKEN') return hashOf(reply[1]);
      if (attempt >= 5) throw new Error(`createFuturesAccount found ${attempt} random ids taken on shard ${shard}`);
    }
  }

  /**
   * The id a new account registered on `shard` asks for: with one shard none ('', the script's
   * counter `ids:facct`), with several shard × 10^14 + a random number below 10^14 (docs/futures.md).
   */
  newAccountId(shard: number): string {
    return this.keys.all().length > 1 ? String(shardIdBase(shard) + randomInt(1, SHARD_ID_SPAN)) : '';
  }

  /**
   * `null` account = the wallet. On the accounts' registry shard (FuturesKeyring.ofAccount; both
   * accounts must be registered on one shard): the wallet there and the accounts' margin there
   * (money comes from home first, and an account's margin elsewhere is brought back first: FuturesAccountService).
   */
  async transfer(userId: string, from: string | null, to: string | null, currency: string, minor: string): Promise<void> {
    const k = this.keys.ofAccount((from ?? to) as string);
    if (from !== null && to !== null && this.keys.ofAccount(to) !== k) throw new Error('transferMargin moves between accounts of one registry shard');
    const wallet = k.walletAvailable(userId);
    const key = (acct: string | null) => (acct === null ? wallet : k.futuresAccount(acct));
    unwrap(
      await this.scripts.runOnceFor<ScriptReply>(
        'transferMargin',
        [wallet, key(from), key(to), k.userEvents()],
        [userId, currency, minor, from === null ? '0' : '1', to === null ? '0' : '1', Date.now(), this.streamMaxLen],
        k,
      ),
    );
  }

  /**
   * Claims `clientOrderId` in the registry at the user's `home` for an order about to be placed on
   * `shard` (lua/spot/claimClientOrderId-1.lua): null when it is the order's, else what holds it
   * there (an order id of the home shard, or `@<shard>` of another shard's order).
   */
  async claimClientOrderId(userId: string, clientOrderId: string, home: number, shard: number): Promise<string | null> {
    const [status, held] = await this.scripts.run<string[]>(
      'claimClientOrderId',
      [this.keys.all()[home].futuresClientOrderIds(userId)],
      [clientOrderId, `@${shard}`],
    );
    return status === 'OK' ? null : held;
  }

  /** TP/SL of one market at its mark price; returns the ids closed, with the reason of each. */
  async sweepTriggers(pairCode: string, markTicks: string, timestamp: number, limit = 1000): Promise<{ id: string; reason: string }[]> {
    const reply = await this.scripts.run<[string, string, string[]]>(
      'sweepFuturesTriggers',
      [...this.scriptKeys.market(pairCode)],
      [this.keys.ofPair(pairCode).engine, pairCode, timestamp, this.streamMaxLen, limit, markTicks],
    );
    const out: { id: string; reason: string }[] = [];
    for (let i = 0; i < reply[2].length; i += 2) out.push({ id: reply[2][i], reason: reply[2][i + 1] });
    return out;
  }

  async liquidate(pairCode: string, markTicks: string, timestamp: number, limit = 1000): Promise<string[]> {
    const reply = await this.scripts.run<[string, string, string[]]>(
      'liquidateFuturesPositions',
      [...this.scriptKeys.market(pairCode)],
      [this.keys.ofPair(pairCode).engine, pairCode, markTicks, timestamp, this.streamMaxLen, limit],
    );
    return reply[2];
  }
}
