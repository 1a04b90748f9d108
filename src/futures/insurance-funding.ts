import { fitsEngine, fromMinor, minorString, toMinorDown } from '../domain/decimal';
import { badRequest, rejected } from '../domain/errors';
import type { MarketStore } from '../markets';
import type { EngineShards } from '../platform/redis/engine-shards';
import { newOperation } from '../platform/redis/operation';
import { unwrap, type ScriptReply } from '../platform/redis/reply';
import type { Scripts } from '../platform/redis/scripts';

export interface InsuranceDepositRequest {
  shard: number;
  currencyCode: string;
  amount: number;
}

/** The operator's way to fund one shard's insurance fund (`POST /api/admin/insurance-fund`). */
export class InsuranceFunding {
  constructor(
    private readonly shards: EngineShards,
    private readonly scripts: Scripts,
    private readonly markets: MarketStore,
  ) {}

  async deposit(req: InsuranceDepositRequest): Promise<{ shard: number; currencyCode: string; balance: number }> {
    if (req.shard >= this.shards.count) {
      throw rejected('ENGINE_SHARD_UNKNOWN', `shard must be below ENGINE_SHARDS (${this.shards.count}), got ${req.shard}`);
    }
    const currency = await this.markets.getCurrency(req.currencyCode);
    if (!currency) throw badRequest('UNKNOWN_CURRENCY', `Unknown currency ${req.currencyCode}`, [{ path: 'currencyCode', message: 'no such currency' }]);
    const minor = toMinorDown(req.amount, currency.decimals);
    if (!fitsEngine(minor)) throw rejected('BALANCE_TOO_LARGE', 'Amount exceeds what the engine holds exactly');
    if (minor.lte(0)) throw rejected('AMOUNT_TOO_SMALL', `amount rounds to zero at ${currency.decimals} decimals`);
    const k = this.shards.keys(req.shard);
    const [, after] = unwrap(
      await this.scripts.runOnce<ScriptReply>('fundInsurance', [k.insuranceFund(), k.deposits()], [req.currencyCode, minorString(minor)], newOperation(k)),
    ) as string[];
    return { shard: req.shard, currencyCode: req.currencyCode, balance: fromMinor(after, currency.decimals) };
  }
}
