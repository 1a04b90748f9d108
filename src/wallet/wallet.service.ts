import { fromMinor, fitsEngine, minorString, toMinorDown } from '../domain/decimal';
import { badRequest, rejected } from '../domain/errors';
import type { MarketStore } from '../markets';
import { unwrap, type ScriptReply } from '../platform/redis/reply';
import type { RedisClient } from '../platform/redis/connection';
import type { Keys } from '../platform/redis/keys';
import type { Scripts } from '../platform/redis/scripts';

export interface BalanceDto {
  currencyCode: string;
  available: number;
  reserved: number;
}

export class WalletService {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    private readonly scripts: Scripts,
    private readonly markets: MarketStore,
    /** MAXLEN of the user event stream a deposit appends to. */
    private readonly streamMaxLen: number,
  ) {}

  async deposit(userId: string, currencyCode: string, amount: number): Promise<BalanceDto> {
    const currency = await this.markets.getCurrency(currencyCode);
    if (!currency) {
      throw badRequest('UNKNOWN_CURRENCY', `Unknown currency ${currencyCode}`, [
        { path: 'currencyCode', message: 'no such currency' },
      ]);
    }
    const minor = toMinorDown(amount, currency.decimals);
    if (!fitsEngine(minor)) throw rejected('BALANCE_TOO_LARGE', 'Amount exceeds what the engine holds exactly');
    if (minor.lte(0)) throw rejected('AMOUNT_TOO_SMALL', `amount rounds to zero at ${currency.decimals} decimals`);
    unwrap(
      await this.scripts.runOnceFor<ScriptReply>(
        'deposit',
        [this.keys.walletAvailable(userId), this.keys.userEvents()],
        [currencyCode, minorString(minor), userId, Date.now(), this.streamMaxLen],
        this.keys,
      ),
    );
    return (await this.balances(userId)).find((b) => b.currencyCode === currencyCode) as BalanceDto;
  }

  async balances(userId: string): Promise<BalanceDto[]> {
    const [avail, rsv] = await Promise.all([
      this.redis.hgetall(this.keys.walletAvailable(userId)),
      this.redis.hgetall(this.keys.walletReserved(userId)),
    ]);
    const codes = [...new Set([...Object.keys(avail), ...Object.keys(rsv)])].sort();
    const out: BalanceDto[] = [];
    for (const code of codes) {
      const c = await this.markets.getCurrency(code);
      const digits = c?.decimals ?? 0;
      out.push({ currencyCode: code, available: fromMinor(avail[code], digits), reserved: fromMinor(rsv[code], digits) });
    }
    return out;
  }
}
