import type { ChainableCommander } from 'ioredis';
import type { Keys } from '../platform/redis/keys';
import type { Scripts } from '../platform/redis/scripts';
import { decodePlace, hashOf, unwrap, type PlaceReply, type ScriptReply } from '../platform/redis/reply';
import { STP_FLAGS, type Side, type StpMode } from '../domain/order';

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

/** Typed calls into the futures Lua scripts: argument builders in KEYS/ARGV order, reply decoders. */
export class FuturesEngine {
  constructor(
    private readonly keys: Keys,
    private readonly scripts: Scripts,
    private readonly streamMaxLen: number,
  ) {}

  createArgs(o: CreateFuturesInput): Call {
    const k = this.keys;
    return {
      keys: [
        k.orderIds(), k.userOrders(o.userId, 'futures'), k.userOpenOrders(o.userId, 'futures', o.pairCode),
        k.futuresClientOrderIds(o.userId), k.futuresAccount(o.accountId),
      ],
      args: [
        k.engine, o.userId, o.pairCode, o.side, o.isMarket ? '1' : '0', o.priceTicks ?? '', o.amountLots,
        o.tpTicks ?? '', o.slTicks ?? '', o.accountId, o.postOnly ? '1' : '0', STP_FLAGS[o.stp],
        o.clientOrderId ?? '', o.timestamp, this.streamMaxLen,
      ],
    };
  }

  async create(o: CreateFuturesInput): Promise<PlaceReply> {
    const { keys, args } = this.createArgs(o);
    return decodePlace(await this.scripts.run<ScriptReply>('createFuturesOrder', keys, args));
  }

  queueCreate(pipeline: ChainableCommander, o: CreateFuturesInput): void {
    const { keys, args } = this.createArgs(o);
    this.scripts.queue(pipeline, 'createFuturesOrder', keys, args);
  }

  async close(userId: string, orderId: string, limitTicks: string | null, timestamp: number): Promise<Record<string, string>> {
    const reply = unwrap(
      await this.scripts.run<ScriptReply>('closeFuturesPosition', [this.keys.order(orderId)], [
        this.keys.engine, userId, limitTicks === null ? '1' : '0', limitTicks ?? '', timestamp, this.streamMaxLen,
      ]),
    );
    return hashOf(reply[1]);
  }

  async updateTrigger(
    userId: string,
    orderId: string,
    which: 'tp' | 'sl',
    ticks: string | null,
    timestamp: number,
  ): Promise<Record<string, string>> {
    const reply = unwrap(
      await this.scripts.run<ScriptReply>('updateFuturesTrigger', [this.keys.order(orderId)], [
        this.keys.engine, userId, which, ticks ?? '', timestamp,
      ]),
    );
    return hashOf(reply[1]);
  }

  async createAccount(userId: string, name: string, currency: string, leverage: number, timestamp: number) {
    const reply = unwrap(
      await this.scripts.run<ScriptReply>(
        'createFuturesAccount',
        [this.keys.futuresAccountIds(), this.keys.userFuturesAccounts(userId)],
        [this.keys.engine, userId, name, currency, leverage, timestamp],
      ),
    );
    return hashOf(reply[1]);
  }

  /** `null` account = the wallet. */
  async transfer(userId: string, from: string | null, to: string | null, currency: string, minor: string): Promise<void> {
    const wallet = this.keys.walletAvailable(userId);
    const key = (acct: string | null) => (acct === null ? wallet : this.keys.futuresAccount(acct));
    unwrap(
      await this.scripts.run<ScriptReply>('transferMargin', [wallet, key(from), key(to)], [
        userId, currency, minor, from === null ? '0' : '1', to === null ? '0' : '1',
      ]),
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
      [this.keys.lastPrice('futures', pairCode)],
      [this.keys.engine, pairCode, timestamp, this.streamMaxLen, limit],
    );
    const out: { id: string; reason: string }[] = [];
    for (let i = 0; i < reply[2].length; i += 2) out.push({ id: reply[2][i], reason: reply[2][i + 1] });
    return out;
  }

  async liquidate(pairCode: string, markTicks: string, timestamp: number, limit = 1000): Promise<string[]> {
    const reply = await this.scripts.run<[string, string, string[]]>(
      'liquidateFuturesPositions',
      [this.keys.futuresTrigger(pairCode, 'liqL')],
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
      [this.keys.fundingState(pairCode)],
      [this.keys.engine, pairCode, markTicks, ratePpm, round, timestamp, this.streamMaxLen],
    );
    if (reply[0] === 'SKIP') return { settled: false, positions: 0, collected: '0', paid: '0' };
    return { settled: true, positions: Number(reply[1]), collected: reply[2], paid: reply[3] };
  }
}
