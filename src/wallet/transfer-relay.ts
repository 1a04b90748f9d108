import { AppError } from '../domain/errors';
import type { Logger } from '../platform/config/logger';
import type { ShardLinks } from '../platform/redis/shard-links';
import { GroupCommit } from '../platform/group-commit';
import { creditedOrThrow, type Transfer, type TransferLedger } from './transfer-ledger';

/** Transfers one credit or acknowledgement call carries at most (group commit per shard). */
export const MAX_RELAY_BATCH = 64;

/**
 * Carries a sent transfer to its target (docs/architecture.md, "Engine shards: money"): the debit made
 * durable at the sender, the credit keyed by the transfer id at the receiver, made durable too,
 * then the outbox entry acknowledged. Every step repeats harmlessly, so the api runs them for its
 * own top-ups and a worker drains whatever is left in the outboxes (`drain`) after a crash.
 */
export class TransferRelay {
  /** `homeOf`: where the transfer's money is of record (the user's home; shard 0 for a futures account's margin). */
  /** Credits per receiving shard and acknowledgements per sending shard that queue up while one call runs go out together. */
  private readonly credits: GroupCommit<{ t: Transfer; topUp: boolean }, string[]>;
  private readonly acks: GroupCommit<Transfer, void>;

  constructor(
    private readonly ledger: TransferLedger,
    private readonly links: ShardLinks,
    private readonly homeOf: (t: Pick<Transfer, 'user' | 'acct'>) => Promise<number>,
  ) {
    this.credits = new GroupCommit(async (items) => {
      const shard = items[0].t.to;
      const to = await this.links.link(shard);
      const replies = await this.ledger.creditAll(to.client, shard, items);
      // one WAIT covers the whole batch: the link's writes replicate in order
      await this.links.durable(shard, to);
      return replies;
    }, MAX_RELAY_BATCH);
    this.acks = new GroupCommit(async (ts) => {
      await this.ledger.ackAll(ts[0].from, ts);
      return ts.map(() => undefined);
    }, MAX_RELAY_BATCH);
  }

  /** Steps 2 to 4 of `t`; throws a 503 when a shard did not answer or confirm (the outbox keeps it). */
  async deliver(t: Pick<Transfer, 'id' | 'from'>): Promise<void> {
    await this.lostOnFailure(() => this.steps(t));
  }

  /**
   * Steps 2 to 4 of a transfer this process has just sent (step 1 answered it, amount included).
   * Where the sender runs `appendfsync always` (or shares one ordered log with the receiver),
   * step 1's reply came after its fsync: the debit is durable already and the mark, a command and
   * an fsync at the sender, is left out. With a replica the mark's WAIT is what makes it durable.
   */
  async deliverSent(t: Transfer): Promise<void> {
    if (this.links.mode(t.from) === 'replica' || t.amount === undefined) return this.deliver(t);
    await this.lostOnFailure(() => this.creditAndAck(t));
  }

  private async lostOnFailure(run: () => Promise<void>): Promise<void> {
    try {
      await run();
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
    await this.creditAndAck(marked);
  }

  /** Steps 3 and 4: the credit at the receiver, made durable, then the sender's outbox entry acknowledged. */
  private async creditAndAck(t: Transfer): Promise<void> {
    // money going away from home is a top-up of escrow: it marks the escrow busy for the idle sweep
    const topUp = t.to !== (await this.homeOf(t));
    // resolves once the credit is durable (the batch's WAIT, or appendfsync always)
    creditedOrThrow(await this.credits.submit(String(t.to), { t, topUp }));
    await this.acks.submit(String(t.from), t);
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
