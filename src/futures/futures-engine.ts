import type { ChainableCommander } from 'ioredis';
import type { Keys } from '../platform/redis/keys';
import type { Scripts } from '../platform/redis/scripts';
import { decodePlace, hashOf, unwrap, type PlaceReply, type ScriptReply } from '../platform/redis/reply';
import { STP_FLAGS, type Side, type StpMode } from '../domain/order';
import { newOperation } from '../platform/redis/operation';
import { FuturesScriptKeys } from './futures-script-keys';

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
  stp: StpMode;
  clientOrderId?: string | null;
  timestamp: number;
}

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
export class FuturesEngine {
  private readonly scriptKeys: FuturesScriptKeys;

  constructor(
    private readonly keys: Keys,
    private readonly scripts: Scripts,
    private readonly streamMaxLen: number,
  ) {
    this.scriptKeys = new FuturesScriptKeys(keys);
  }

  createArgs(o: CreateFuturesInput): Call {
    const k = this.keys;
    return {
      keys: this.scriptKeys.createOrder(o.pairCode, o.userId, o.accountId),
      args: [
        k.engine, o.userId, o.pairCode, o.side, o.isMarket ? '1' : '0', o.priceTicks ?? '', o.amountLots,
        o.tpTicks ?? '', o.slTicks ?? '', o.accountId, o.postOnly ? '1' : '0', STP_FLAGS[o.stp],
        o.clientOrderId ?? '', o.timestamp, this.streamMaxLen,
      ],
    };
  }

  async create(o: CreateFuturesInput): Promise<PlaceReply> {
    const { keys, args } = this.createArgs(o);
    return decodePlace(await this.scripts.runOnce<ScriptReply>('createFuturesOrder', keys, args, newOperation(this.keys)));
  }

  queueCreate(pipeline: ChainableCommander, o: CreateFuturesInput): void {
    const { keys, args } = this.createArgs(o);
    this.scripts.queue(pipeline, 'createFuturesOrder', keys, args);
  }

  /** `order`: the caller's order as read before (its pair and account name the script's keys). */
  async close(
    userId: string,
    order: FuturesOrderRef,
    limitTicks: string | null,
    timestamp: number,
  ): Promise<Record<string, string>> {
    const reply = unwrap(
      await this.scripts.runOnce<ScriptReply>(
        'closeFuturesPosition',
        this.scriptKeys.close(order.pair, userId, order.id, order.acct),
        [
          this.keys.engine, userId, limitTicks === null ? '1' : '0', limitTicks ?? '', timestamp, this.streamMaxLen,
          order.pair, order.acct,
        ],
        newOperation(this.keys),
      ),
    );
    return hashOf(reply[1]);
  }

  async updateTrigger(
    userId: string,
    order: Pick<FuturesOrderRef, 'id' | 'pair'>,
    which: 'tp' | 'sl',
    ticks: string | null,
    timestamp: number,
  ): Promise<Record<string, string>> {
    const reply = unwrap(
      await this.scripts.runOnce<ScriptReply>(
        'updateFuturesTrigger',
        this.scriptKeys.updateTrigger(order.pair, order.id),
        [this.keys.engine, userId, which, ticks ?? '', timestamp, order.pair],
        newOperation(this.keys),
      ),
    );
    return hashOf(reply[1]);
  }

  async createAccount(userId: string, name: string, currency: string, leverage: number, timestamp: number) {
    const reply = unwrap(
      await this.scripts.runOnce<ScriptReply>(
        'createFuturesAccount',
        [this.keys.futuresAccountIds(), this.keys.userFuturesAccounts(userId)],
        [this.keys.engine, userId, name, currency, leverage, timestamp],
        newOperation(this.keys),
      ),
    );
    return hashOf(reply[1]);
  }

  /** `null` account = the wallet. */
  async transfer(userId: string, from: string | null, to: string | null, currency: string, minor: string): Promise<void> {
    const wallet = this.keys.walletAvailable(userId);
    const key = (acct: string | null) => (acct === null ? wallet : this.keys.futuresAccount(acct));
    unwrap(
      await this.scripts.runOnce<ScriptReply>(
        'transferMargin',
        [wallet, key(from), key(to)],
        [userId, currency, minor, from === null ? '0' : '1', to === null ? '0' : '1'],
        newOperation(this.keys),
      ),
    );
  }

  async setIndexPrice(pairCode: string, ticks: string, timestamp: number): Promise<void> {
    await this.scripts.run<ScriptReply>(
      'setIndexPrice',
      [this.keys.indexPrice(pairCode), this.keys.events('futures', pairCode)],
      [ticks, timestamp, this.streamMaxLen],
    );
  }

  /** TP/SL of one market at its last price; returns the ids closed, with the reason of each. */
  async sweepTriggers(pairCode: string, timestamp: number, limit = 1000): Promise<{ id: string; reason: string }[]> {
    const reply = await this.scripts.run<[string, string, string[]]>(
      'sweepFuturesTriggers',
      [...this.scriptKeys.market(pairCode)],
      [this.keys.engine, pairCode, timestamp, this.streamMaxLen, limit],
    );
    const out: { id: string; reason: string }[] = [];
    for (let i = 0; i < reply[2].length; i += 2) out.push({ id: reply[2][i], reason: reply[2][i + 1] });
    return out;
  }

  async liquidate(pairCode: string, markTicks: string, timestamp: number, limit = 1000): Promise<string[]> {
    const reply = await this.scripts.run<[string, string, string[]]>(
      'liquidateFuturesPositions',
      [...this.scriptKeys.market(pairCode)],
      [this.keys.engine, pairCode, markTicks, timestamp, this.streamMaxLen, limit],
    );
    return reply[2];
  }

  async settleFunding(
    pairCode: string,
    markTicks: string,
    ratePpm: number,
    round: number,
    timestamp: number,
  ): Promise<{ settled: boolean; positions: number; collected: string; paid: string }> {
    const reply = await this.scripts.run<string[]>(
      'settleFuturesFunding',
      this.scriptKeys.funding(pairCode),
      [this.keys.engine, pairCode, markTicks, ratePpm, round, timestamp, this.streamMaxLen],
    );
    if (reply[0] === 'SKIP') return { settled: false, positions: 0, collected: '0', paid: '0' };
    return { settled: true, positions: Number(reply[1]), collected: reply[2], paid: reply[3] };
  }
}
