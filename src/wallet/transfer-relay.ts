import { AppError } from '../domain/errors';
import type { Logger } from '../platform/config/logger';
import type { ShardLinks } from '../platform/redis/shard-links';
import type { Transfer, TransferLedger } from './transfer-ledger';

/**
 * Carries a sent transfer to its target (docs/architecture.md, "Engine shards: money"): the debit made
 * durable at the sender, the credit keyed by the transfer id at the receiver, made durable too,
 * then the outbox entry acknowledged. Every step repeats harmlessly, so the api runs them for its
 * own top-ups and a worker drains whatever is left in the outboxes (`drain`) after a crash.
 */
export class TransferRelay {
  /** `homeOf`: where the transfer's money is of record (the user's home; shard 0 for a futures account's margin). */
  constructor(
    private readonly ledger: TransferLedger,
    private readonly links: ShardLinks,
    private readonly homeOf: (t: Pick<Transfer, 'user' | 'acct'>) => Promise<number>,
  ) {}

  /** Steps 2 to 4 of `t`; throws a 503 when a shard did not answer or confirm (the outbox keeps it). */
  async deliver(t: Pick<Transfer, 'id' | 'from'>): Promise<void> {
    try {
      await this.steps(t);
    } catch (err) {
      // a shard's master may have moved (failover): the next delivery asks the cluster first
      if (!(err instanceof AppError)) await this.links.lost();
      throw err;
    }
  }

  private async steps(t: Pick<Transfer, 'id' | 'from'>): Promise<void> {
    const from = await this.links.link(t.from);
    const marked = await this.ledger.mark(from.client, t);
    if (!marked) throw new AppError(503, 'TRANSFER_LOST', `Transfer ${t.id} is gone from shard ${t.from}: it was lost with its debit`);
    await this.links.durable(t.from, from);
    if (marked.state === 'done') return;
    // money going away from home is a top-up of escrow: it marks the escrow busy for the idle sweep
    const topUp = marked.to !== (await this.homeOf(marked));
    const to = await this.links.link(marked.to);
    await this.ledger.credit(to.client, marked, topUp);
    await this.links.durable(marked.to, to);
    await this.ledger.ack(marked);
  }

  /**
   * Delivers what the outbox of `shard` holds that was sent at least `minAgeMs` ago (younger ones
   * are being delivered by the api that sent them). Returns how many were delivered.
   */
  async drain(shard: number, minAgeMs: number, log?: Logger): Promise<number> {
    let delivered = 0;
    const before = Date.now() - minAgeMs;
    for (const t of await this.ledger.outbox(shard)) {
      if (t.sentMs > before) break;
      try {
        await this.deliver(t);
        delivered++;
      } catch (err) {
        log?.warn({ err, transfer: t.id, shard }, 'transfer not delivered yet');
      }
    }
    return delivered;
  }
}
