import BigNumber from 'bignumber.js';
import { fitsEngine, fromMinor, minorString, toMinorDown } from '../domain/decimal';
import { futuresParams } from '../domain/futures';
import { shardOfId } from '../domain/shard-ids';
import { AppError, badRequest, conflict, engineError, ignoreShortfall, notFound, rejected } from '../domain/errors';
import type { FuturesAccountKind, FuturesEngine } from './futures-engine';
import type { MarketStore } from '../markets';
import type { RedisClient } from '../platform/redis/connection';
import type { FuturesKeyring } from './futures-keyring';
import { FuturesOrderIndex } from './futures-order-index';
import { unrealizedMinor } from './futures-order-dto';
import type { FuturesPriceService } from './prices/futures-price.service';

export interface CreateAccountRequest {
  name: string;
  currencyCode: string;
  leverage: number;
}

export interface TransferRequest {
  fromFuturesAccountId: number | null;
  toFuturesAccountId: number | null;
  currencyCode: string;
  amount: number;
}

/** The futures account of docs/api-contract.md#operator-routes. balance = available + usedMargin; equity adds unrealized pnl at mark. */
export interface FuturesAccountDto {
  id: number;
  name: string;
  currencyCode: string;
  leverage: number;
  balance: number;
  available: number;
  usedMargin: number;
  equity: number;
}

/** 409 for moving money into or out of, or hand-opening a position in, a copy subscription's account. */
export const copyAccount = () =>
  conflict('COPY_ACCOUNT', 'The account belongs to a copy subscription: money moves through start, margin changes and finish');

/**
 * How futures money crosses engine shards (src/wallet's Funds): an account is registered at its
 * owner's home, where its wallet side is (`fund` brings the user's money to another registry shard,
 * for accounts registered on shard 0 before the registry moved home, or copy trading's); an
 * account's free margin comes back to its registry shard from the shards it sits on (`acct`) and
 * goes to a market's shard when an order there needs it (`escrow.cover`); an account's margin read
 * whole over every shard. With one shard nothing moves (`escrow` is null).
 */
export interface FuturesFunding {
  /** Each user's home shard: where the user's accounts are registered (FuturesKeyring). */
  homes: { of(userId: string): Promise<number> };
  fund(userId: string, shard: number, cur: string, minor: string, acct?: string): Promise<void>;
  escrow: { cover(userId: string, shard: number, cur: string, need: string, boost?: number, acct?: string): Promise<void> } | null;
  mergedAccounts(userId: string, accountIds: string[]): Promise<Map<string, { balance: string; locked: string }>>;
}

/** Futures accounts and transfers between them and the wallet. */

export class FuturesAccountService {
  private readonly orderIndex: FuturesOrderIndex;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: FuturesKeyring,
    private readonly markets: MarketStore,
    private readonly engine: FuturesEngine,
    private readonly prices: FuturesPriceService,
    private readonly funding: FuturesFunding,
  ) {
    this.orderIndex = new FuturesOrderIndex(redis, keys);
  }

  /**
   * With several engine shards the wallet an account on `shard` draws on is the user's wallet there:
   * at home nothing moves; elsewhere (copy trading's shard 0) `minor` of `currency` is brought there
   * from the user's home first (src/wallet).
   */
  fundWallet(userId: string, currency: string, minor: string, shard = 0): Promise<void> {
    return this.funding.fund(userId, shard, currency, minor);
  }

  /**
   * The margin currency must be the quote of a futures pair, the leverage within that pair family's maximum.
   * `copy`: the account of a copy subscription, flagged at birth (no transfers, no hand-placed opening orders);
   * `master`: a copy master's. Both keep trading aggregates from birth. Registered at the user's
   * home, or on `shard` (copy trading's accounts, on the shard its scripts run on).
   */
  async create(userId: string, req: CreateAccountRequest, kind: FuturesAccountKind = 'own', shard?: number): Promise<FuturesAccountDto> {
    const pairs = (await this.markets.listPairs('futures')).filter((p) => p.quoteCurrencyCode === req.currencyCode);
    if (pairs.length === 0) {
      throw rejected('UNSUPPORTED_MARGIN_CURRENCY', `No futures pair settles in ${req.currencyCode}`);
    }
    const max = Math.max(...pairs.map((p) => p.maxLeverage ?? 1));
    if (req.leverage > max) throw rejected('LEVERAGE_ABOVE_MAX', `Leverage above the maximum ${max} of the pairs`);
    const at = shard ?? (await this.keys.homeOf(userId));
    const h = await this.engine.createAccount(userId, req.name, req.currencyCode, req.leverage, Date.now(), kind, at);
    return this.dto(h, new BigNumber(0));
  }

  /**
   * The caller's accounts; with several engine shards each account's margin is its hashes' on every
   * shard, a margin transfer in flight counted once (FuturesFunding.mergedAccounts; 503 when a shard
   * cannot answer, never a partial sum).
   */
  async list(userId: string): Promise<FuturesAccountDto[]> {
    const ids = await this.orderIndex.userAccountIds(userId);
    const merged = this.keys.all().length > 1 ? await this.funding.mergedAccounts(userId, ids) : null;
    const marks = new Map<string, string | null>();
    const out: FuturesAccountDto[] = [];
    for (const id of ids) {
      const h = await this.redis.hgetall(this.keys.ofAccount(id).futuresAccount(id));
      out.push(await this.dto({ ...h, ...merged?.get(id) }, await this.unrealized(id, marks)));
    }
    return out;
  }

  /** The caller's account or 404 (another user's account is not found either). */
  async owned(userId: string, accountId: number | string): Promise<Record<string, string>> {
    const h = /^\d{1,16}$/.test(String(accountId)) ? await this.redis.hgetall(this.keys.ofAccount(accountId).futuresAccount(accountId)) : {};
    if (h.user !== userId) throw notFound('ACCOUNT_NOT_FOUND', 'Futures account not found');
    return h;
  }

  async transfer(userId: string, req: TransferRequest): Promise<void> {
    const from = req.fromFuturesAccountId === null ? null : String(req.fromFuturesAccountId);
    const to = req.toFuturesAccountId === null ? null : String(req.toFuturesAccountId);
    if (from === to) {
      throw badRequest('VALIDATION_FAILED', 'Source and target are the same', [
        { path: 'toFuturesAccountId', message: 'must differ from fromFuturesAccountId' },
      ]);
    }
    const currency = await this.markets.getCurrency(req.currencyCode);
    if (!currency) {
      throw badRequest('UNKNOWN_CURRENCY', `Unknown currency ${req.currencyCode}`, [
        { path: 'currencyCode', message: 'no such currency' },
      ]);
    }
    for (const a of [from, to]) {
      // the flag is set when the account is made and never cleared, so reading it first is safe
      if (a !== null && (await this.owned(userId, a)).copy === '1') throw copyAccount();
    }
    const minor = toMinorDown(req.amount, currency.decimals);
    if (!fitsEngine(minor)) throw rejected('BALANCE_TOO_LARGE', 'Amount exceeds what the engine holds exactly');
    if (minor.lte(0)) throw rejected('AMOUNT_TOO_SMALL', `amount rounds to zero at ${currency.decimals} decimals`);
    const amount = minorString(minor);
    if (from !== null && to !== null && shardOfId(from) !== shardOfId(to)) {
      // accounts registered on two shards (one from before the registry moved home, or copy
      // trading's): through the wallet, two transfers each of one script; the money is the user's
      // wallet's in between (its escrow there goes home when idle)
      await this.transferAt(userId, from, null, req.currencyCode, amount);
      await this.transferAt(userId, null, to, req.currencyCode, amount);
      return;
    }
    await this.transferAt(userId, from, to, req.currencyCode, amount);
  }

  /**
   * One transferMargin on the accounts' registry shard (the user's home for accounts made since it
   * moved there, so a transfer into one is a single script with nothing to relay): the wallet side is
   * brought there from home first when elsewhere; the source account's free margin on other shards
   * comes back first (what is not anywhere, or is locked, is the transfer script's to refuse with its own code).
   */
  private async transferAt(userId: string, from: string | null, to: string | null, currency: string, minor: string): Promise<void> {
    const shard = shardOfId((from ?? to) as string);
    if (from === null) await this.fundWallet(userId, currency, minor, shard);
    else await this.funding.fund(userId, shard, currency, minor, from).catch(ignoreShortfall);
    try {
      await this.engine.transfer(userId, from, to, currency, minor);
    } catch (err) {
      // the script sees the account's margin on its registry shard only: margin locked on a market's
      // shard makes the answer the one a single shard gives (free + locked would cover it)
      if (from === null || !(err instanceof AppError && err.code === 'INSUFFICIENT_BALANCE') || this.keys.all().length === 1) throw err;
      const m = (await this.funding.mergedAccounts(userId, [from])).get(from);
      if (m && new BigNumber(m.balance).plus(m.locked).gte(minor)) throw engineError('MARGIN_IN_USE');
      throw err;
    }
  }

  /** Unrealized pnl at mark of the account's positions; `marks` caches mark prices across accounts. */
  private async unrealized(accountId: string, marks: Map<string, string | null>): Promise<BigNumber> {
    let sum = new BigNumber(0);
    for (const h of await this.orderIndex.accountOrders(accountId, { status: 'open' })) {
      if (h.status !== '50') continue;
      const pair = await this.markets.getPair('futures', h.pair);
      if (!pair) continue;
      if (!marks.has(pair.code)) marks.set(pair.code, await this.prices.markTicks(pair));
      sum = sum.plus(unrealizedMinor(h, futuresParams(pair), marks.get(pair.code) ?? null));
    }
    return sum;
  }

  private async dto(h: Record<string, string>, upnl: BigNumber): Promise<FuturesAccountDto> {
    const digits = (await this.markets.getCurrency(h.currency))?.decimals ?? 0;
    const balance = new BigNumber(h.balance || 0);
    const locked = new BigNumber(h.locked || 0);
    return {
      id: Number(h.id),
      name: h.name,
      currencyCode: h.currency,
      leverage: Number(h.lev),
      balance: fromMinor(balance.plus(locked).toFixed(0), digits),
      available: fromMinor(h.balance, digits),
      usedMargin: fromMinor(h.locked, digits),
      equity: fromMinor(balance.plus(locked).plus(upnl).toFixed(0), digits),
    };
  }
}
