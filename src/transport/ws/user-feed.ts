import type { MarketKind, Pair } from '../../domain/market';
import type { Logger } from '../../platform/config/logger';
import type { MarketEntry } from '../../platform/market-event';
import { UserChangeSet, type UserChanges } from './user-changes';
import type { UserChannel } from './user-protocol';
import type { UserStateReader } from './user-state';

/** What the feed needs of a connection: uWS's socket behind it (user-gateway.ts). */
export interface UserConnection {
  readonly userId: string;
  /** Channels it subscribed to, whose snapshot has been sent. */
  readonly channels: Set<UserChannel>;
  /** Sends one frame, stamping the connection's next `seq`. */
  send(frame: Record<string, unknown>): void;
  /** Ends the connection (a read failed: the client reconnects and gets a snapshot). */
  fail(reason: string): void;
}

/**
 * `updateId` of an order: the market stream entry that changed it, as one number (ms × 1000 +
 * sequence). Every change of an order is an entry of its market's stream, whose ids rise, so
 * every gateway gives a change the same updateId and an order's updateIds rise.
 */
export function updateIdOf(entryId: string): number {
  const dash = entryId.indexOf('-');
  return Number(entryId.slice(0, dash)) * 1000 + Math.min(Number(entryId.slice(dash + 1)), 999);
}

/**
 * The private stream's fan-out in one ws instance: turns the engine's entries into frames for the
 * users connected here. Each user has one chain of work: the reads behind an entry's frames, a
 * snapshot, run one after another, so a user sees states in the order the engine made them and no
 * update from before a snapshot after it. Users never share a chain, nor a frame.
 */
export class UserFeed {
  private readonly byUser = new Map<string, Set<UserConnection>>();
  private readonly chains = new Map<string, Promise<void>>();
  /** Last entry id seen per market stream: a snapshot's orders carry it as their updateId. */
  private readonly lastIds = new Map<string, string>();

  constructor(
    private readonly reader: UserStateReader,
    private readonly log: Logger,
  ) {}

  get users(): number {
    return this.byUser.size;
  }

  attach(conn: UserConnection): void {
    let set = this.byUser.get(conn.userId);
    if (!set) this.byUser.set(conn.userId, (set = new Set()));
    set.add(conn);
  }

  detach(conn: UserConnection): void {
    const set = this.byUser.get(conn.userId);
    if (!set?.delete(conn)) return;
    if (set.size === 0) this.byUser.delete(conn.userId);
  }

  private readonly connected = (userId: string) => this.byUser.has(userId);

  onMarketEntry(kind: MarketKind, pair: Pair, entry: MarketEntry): void {
    this.lastIds.set(`${kind}/${pair.code}`, entry.id);
    if (this.byUser.size === 0) return;
    const set = new UserChangeSet(this.connected);
    set.addMarketEntry(kind, pair, entry);
    this.dispatch(set, entry);
  }

  onUserEntry(entry: MarketEntry): void {
    if (this.byUser.size === 0) return;
    const set = new UserChangeSet(this.connected);
    set.addUserEntry(entry);
    this.dispatch(set, entry);
  }

  /** Sends `channel`'s snapshot to `conn`, in its user's chain; from then on its updates. */
  subscribe(conn: UserConnection, channel: UserChannel): void {
    const updateIds = new Map(this.lastIds);
    this.enqueue(conn.userId, async () => {
      const rows = await this.reader.snapshot(conn.userId, channel);
      if (channel === 'orders') {
        for (const r of rows) r.updateId = updateIdOf(updateIds.get(`${String(r.kind)}/${String(r.currencyPairCode)}`) ?? '0-0');
      }
      conn.channels.add(channel);
      conn.send({ channel, type: 'snapshot', data: rows });
    }, [conn]);
  }

  private dispatch(set: UserChangeSet, entry: MarketEntry): void {
    for (const [userId, changes] of set.byUser) {
      this.enqueue(userId, () => this.deliver(userId, changes, entry), this.byUser.get(userId));
    }
  }

  /** Reads the state behind `changes` and sends each frame to every connection of the user that wants it. */
  private async deliver(userId: string, c: UserChanges, entry: MarketEntry): Promise<void> {
    const conns = this.byUser.get(userId);
    if (!conns) return;
    const wants = (ch: UserChannel) => [...conns].some((x) => x.channels.has(ch));
    const updateId = updateIdOf(entry.id);
    const [orders, positions, wallet, accounts] = await Promise.all([
      wants('orders') ? Promise.all(c.orders.map((o) => this.reader.order(userId, o.kind, o.id))) : [],
      wants('positions') ? Promise.all(c.positions.map((id) => this.reader.position(userId, id))) : [],
      wants('balances') && c.wallet.size > 0 ? this.reader.wallet(userId, new Set(c.wallet.keys())) : [],
      wants('balances') && c.accounts ? this.reader.accounts(userId) : [],
    ]);
    const frames: [UserChannel, Record<string, unknown>][] = [];
    for (const o of orders) if (o) frames.push(['orders', { ...o, updateId }]);
    for (const f of c.fills) frames.push(['fills', { ...f }]);
    for (const w of wallet) frames.push(['balances', { ...w, reason: c.wallet.get(String(w.currencyCode)) }]);
    for (const a of accounts) frames.push(['balances', { ...a, reason: c.accounts }]);
    for (const p of positions) if (p) frames.push(['positions', p]);
    for (const conn of conns) {
      for (const [channel, data] of frames) {
        if (conn.channels.has(channel)) conn.send({ channel, type: 'update', ts: entry.ts, data });
      }
    }
  }

  /** Runs `work` after the user's earlier work; a failure ends `failing` (they reconnect for a snapshot). */
  private enqueue(userId: string, work: () => Promise<void>, failing: Iterable<UserConnection> | undefined): void {
    const before = this.chains.get(userId) ?? Promise.resolve();
    const next = before.then(work).catch((err: unknown) => {
      this.log.error({ err, userId }, 'ws: private stream read failed, closing the user\'s connections');
      for (const conn of [...(failing ?? [])]) conn.fail('state read failed; reconnect for a snapshot');
    });
    this.chains.set(userId, next);
    void next.then(() => {
      if (this.chains.get(userId) === next) this.chains.delete(userId);
    });
  }
}
