import BigNumber from 'bignumber.js';
import { fromMinor } from '../domain/decimal';
import type { MarketStore } from '../markets';
import type { RedisClient } from '../platform/redis/connection';
import type { EngineShards } from '../platform/redis/engine-shards';
import type { TransferLedger } from './transfer-ledger';

/** The terms of the money invariant of one currency, summed over every shard (docs/architecture.md). */
export const RECONCILE_TERMS = [
  'home', 'escrow', 'reserved', 'futuresAccounts', 'inTransit', 'fees', 'insurance', 'pnlPool', 'deposits', 'withdrawals',
] as const;
export type ReconcileTerm = (typeof RECONCILE_TERMS)[number];

export interface CurrencyReconciliation {
  currencyCode: string;
  /** Each term in the currency's units; everything left of `deposits` sums to deposits − withdrawals. */
  terms: Record<ReconcileTerm, number>;
  /** Σ held − (deposits − withdrawals), in the currency's units: 0 when the invariant holds. */
  difference: number;
  holds: boolean;
  /** Balances found below zero (key and field): must be empty. */
  negative: string[];
  /** Futures margin (free and locked, every account) held on each engine shard: its part of `futuresAccounts`. */
  shards: { shard: number; futuresAccounts: number }[];
}

type Sums = Map<string, Record<ReconcileTerm, BigNumber>>;

/**
 * Checks, per currency, Σ home + Σ escrow + Σ reserved + futures accounts + in transit + fees +
 * insurance + pnl pools = deposits − withdrawals (there are no withdrawals yet), reading every shard
 * in full (SCAN): an operator's tool, exact while no money moves, with `inTransit` draining to zero.
 * `nodeOf(shard)` is a connection to the server that holds the shard's keys (SCAN runs per server).
 */
export class Reconciler {
  constructor(
    private readonly redis: RedisClient,
    private readonly shards: EngineShards,
    private readonly markets: MarketStore,
    private readonly ledger: TransferLedger,
    private readonly nodeOf: (shard: number) => RedisClient,
    private readonly homeOf: (userId: string) => Promise<number>,
  ) {}

  async check(): Promise<CurrencyReconciliation[]> {
    const sums: Sums = new Map();
    const negative: string[] = [];
    const margins = new Map<string, BigNumber[]>();
    let current = 0;
    const add = (cur: string, term: ReconcileTerm, v: string | number, where: string) => {
      if (cur.includes(':')) return; // insurance fund bookkeeping fields (position:<pair>, cost:<pair>)
      const row = sums.get(cur) ?? (Object.fromEntries(RECONCILE_TERMS.map((t) => [t, new BigNumber(0)])) as Record<ReconcileTerm, BigNumber>);
      const n = new BigNumber(v);
      if (n.isNegative()) negative.push(`${where} ${cur}`);
      row[term] = row[term].plus(n);
      sums.set(cur, row);
      if (term === 'futuresAccounts') {
        const perShard = margins.get(cur) ?? Array.from({ length: this.shards.count }, () => new BigNumber(0));
        perShard[current] = perShard[current].plus(n);
        margins.set(cur, perShard);
      }
    };
    for (let shard = 0; shard < this.shards.count; shard++) {
      current = shard;
      await this.readShard(shard, add);
    }
    const out: CurrencyReconciliation[] = [];
    for (const [cur, row] of [...sums].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const digits = (await this.markets.getCurrency(cur))?.decimals ?? 0;
      const held = RECONCILE_TERMS.filter((t) => t !== 'deposits' && t !== 'withdrawals').reduce((s, t) => s.plus(row[t]), new BigNumber(0));
      const diff = held.minus(row.deposits.minus(row.withdrawals));
      out.push({
        currencyCode: cur,
        terms: Object.fromEntries(RECONCILE_TERMS.map((t) => [t, fromMinor(row[t].toFixed(0), digits)])) as Record<ReconcileTerm, number>,
        difference: fromMinor(diff.toFixed(0), digits),
        holds: diff.isZero() && !negative.some((n) => n.endsWith(` ${cur}`)),
        negative: negative.filter((n) => n.endsWith(` ${cur}`)),
        shards: Array.from({ length: this.shards.count }, (_, shard) => ({
          shard,
          futuresAccounts: fromMinor((margins.get(cur)?.[shard] ?? new BigNumber(0)).toFixed(0), digits),
        })),
      });
    }
    return out;
  }

  private async readShard(shard: number, add: (cur: string, term: ReconcileTerm, v: string, where: string) => void): Promise<void> {
    const k = this.shards.keys(shard);
    const node = this.nodeOf(shard);
    for (const key of await scanAll(node, `${k.engine}wallet:*`)) {
      const [, userId, side] = /wallet:(.*):(avail|rsv)$/.exec(key) ?? [];
      if (!userId) continue;
      const term: ReconcileTerm = side === 'rsv' ? 'reserved' : (await this.homeOf(userId)) === shard ? 'home' : 'escrow';
      for (const [cur, v] of Object.entries(await this.redis.hgetall(key))) add(cur, term, v, key);
    }
    for (const key of await scanAll(node, `${k.engine}facct:*`)) {
      const [cur, balance, locked] = await this.redis.hmget(key, 'currency', 'balance', 'locked');
      if (!cur) continue;
      add(cur, 'futuresAccounts', balance ?? '0', `${key}.balance`);
      add(cur, 'futuresAccounts', locked ?? '0', `${key}.locked`);
    }
    const funds: [ReconcileTerm, string][] = [
      ['fees', k.feesCollected()], ['insurance', k.insuranceFund()], ['pnlPool', k.futuresPnlPool()], ['deposits', k.deposits()],
    ];
    for (const [term, key] of funds) for (const [cur, v] of Object.entries(await this.redis.hgetall(key))) add(cur, term, v, key);
    for (const t of await this.ledger.outbox(shard, 1_000_000)) {
      if (!(await this.redis.exists(this.shards.keys(t.to).transferCredit(t.id)))) add(t.cur, 'inTransit', t.amount as string, k.transfer(t.id));
    }
  }
}

async function scanAll(node: RedisClient, match: string): Promise<string[]> {
  const out: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await node.scan(cursor, 'MATCH', match, 'COUNT', 1000);
    cursor = next;
    out.push(...keys);
  } while (cursor !== '0');
  return out;
}
