import type { MarketKind, Pair } from '../../domain/market';
import type { Logger } from '../../platform/config/logger';
import type { MarketEntry } from '../../platform/market-event';
import type { WalletBook } from './user-balances';
import { UserChangeSet, type OrderState, type UserChanges } from './user-changes';
import type { UserChannel } from './user-protocol';
import { isFinal, isPosition, placedRecord, versionOf, withState, type OrderRecord, type UserStateReader } from './user-state';

/** What the feed needs of a connection: uWS's socket behind it (user-gateway.ts). */
export interface UserConnection {
  readonly userId: string;
  /** Channels it subscribed to, whose snapshot has been sent. */
  readonly channels: Set<UserChannel>;
  /**
   * The version of each order it was last sent on a channel (`<channel>:<kind>:<id>`): a state at or
   * below it is not sent again (its snapshot already showed it, or a later one).
   */
  readonly versions: Map<string, number>;
  /** Sends one frame, stamping the connection's next `seq`. */
  send(frame: Record<string, unknown>): void;
  /** Ends the connection (a read failed: the client reconnects and gets a snapshot). */
  fail(reason: string): void;
}

/** One update frame's channel and data; an order's carries its version (`UserConnection.versions`) and whether it is its last. */
interface Frame {
  channel: UserChannel;
  data: Record<string, unknown>;
  order?: { key: string; v: number; final: boolean };
}

/**
 * The private stream's fan-out in one ws instance: turns the engine's entries into frames for the
 * users connected here. Orders, positions and fills come from the events themselves (each order
 * state the engine wrote, with its version: docs/events.md), so every state arrives, in order;
 * wallet balances too (each command's wallet after it, with the shard's balance sequence: a
 * connection's WalletBook, from its snapshot on); futures accounts are read after the entry. Each
 * user has one chain of work: an entry's frames, a snapshot, one after another, so a user sees
 * states in the engine's order and nothing from before a snapshot after it. Users never share a
 * chain, nor a frame.
 */
export class UserFeed {
  private readonly byUser = new Map<string, Set<UserConnection>>();
  private readonly chains = new Map<string, Promise<void>>();
  /**
   * Per connected user, the record of each order whose state it has seen and which can still
   * change: its fixed fields come from here, its state from each `st` event.
   */
  private readonly records = new Map<string, Map<string, OrderRecord>>();
  /** Each connection's wallet since its balances snapshot (docs/market-data.md, "Exact balances"). */
  private readonly wallets = new Map<UserConnection, WalletBook>();

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
    this.wallets.delete(conn);
    const set = this.byUser.get(conn.userId);
    if (!set?.delete(conn)) return;
    if (set.size === 0) {
      this.byUser.delete(conn.userId);
      this.records.delete(conn.userId);
    }
  }

  private readonly connected = (userId: string) => this.byUser.has(userId);

  /** An entry of a market's stream on engine shard `shard`. */
  onMarketEntry(kind: MarketKind, pair: Pair, entry: MarketEntry, shard = 0): void {
    if (this.byUser.size === 0) return;
    const set = new UserChangeSet(this.connected, shard);
    set.addMarketEntry(kind, pair, entry);
    this.dispatch(set, entry);
  }

  /** An entry of engine shard `shard`'s user event stream. */
  onUserEntry(entry: MarketEntry, shard = 0): void {
    if (this.byUser.size === 0) return;
    const set = new UserChangeSet(this.connected, shard);
    set.addUserEntry(entry);
    this.dispatch(set, entry);
  }

  /** Sends `channel`'s snapshot to `conn`, in its user's chain; from then on its updates. */
  subscribe(conn: UserConnection, channel: UserChannel): void {
    this.enqueue(conn.userId, async () => {
      const { rows, versions, wallet } = await this.reader.snapshot(conn.userId, channel);
      for (const key of [...conn.versions.keys()]) if (key.startsWith(`${channel}:`)) conn.versions.delete(key);
      for (const [key, v] of versions) conn.versions.set(key, v);
      if (wallet) this.wallets.set(conn, wallet);
      conn.channels.add(channel);
      conn.send({ channel, type: 'snapshot', data: rows });
    }, [conn]);
  }

  private dispatch(set: UserChangeSet, entry: MarketEntry): void {
    for (const [userId, changes] of set.byUser) {
      this.enqueue(userId, () => this.deliver(userId, changes, entry), this.byUser.get(userId));
    }
  }

  /** Builds the frames of `changes` and sends each to every connection of the user that wants it. */
  private async deliver(userId: string, c: UserChanges, entry: MarketEntry): Promise<void> {
    const conns = this.byUser.get(userId);
    if (!conns) return;
    const wants = (ch: UserChannel) => [...conns].some((x) => x.channels.has(ch));
    const wantOrders = wants('orders') || wants('positions');
    const [orders, accounts] = await Promise.all([
      wantOrders ? this.orderFrames(userId, c.orders) : [],
      wants('balances') && c.accounts ? this.reader.accounts(userId) : [],
    ]);
    const frames: Frame[] = [...orders];
    for (const f of c.fills) frames.push({ channel: 'fills', data: { ...f } });
    const accountFrames: Frame[] = accounts.map((a) => ({ channel: 'balances', data: { ...a, reason: c.accounts } }));
    for (const conn of conns) {
      const wallet = c.parts.length > 0 && conn.channels.has('balances') ? await this.walletFrames(conn, c) : [];
      for (const { channel, data, order } of [...frames, ...wallet, ...accountFrames]) {
        if (!conn.channels.has(channel)) continue;
        if (order) {
          // a state its snapshot (or an earlier frame) already showed
          if (order.v <= (conn.versions.get(order.key) ?? -1)) continue;
          if (order.final) conn.versions.delete(order.key);
          else conn.versions.set(order.key, order.v);
        }
        conn.send({ channel, type: 'update', ts: entry.ts, data });
      }
    }
  }

  /**
   * The wallet rows `c` changed for `conn`, from its WalletBook: each balance event newer than what
   * the book holds is taken, and a row whose money moved is a frame with the entry's reason (a move
   * between shards alone changes no row: no frame).
   */
  private async walletFrames(conn: UserConnection, c: UserChanges): Promise<Frame[]> {
    const book = this.wallets.get(conn);
    if (!book) return [];
    const touched = [...new Set(c.parts.map((p) => p.currency))];
    const before = touched.map((cur) => book.row(cur));
    for (const p of c.parts) book.apply(p);
    const moved = touched.filter((cur, i) => {
      const after = book.row(cur);
      return after.available !== before[i].available || after.reserved !== before[i].reserved;
    });
    if (moved.length === 0) return [];
    const rows = await this.reader.walletRows(book, moved);
    return rows.map((r) => ({ channel: 'balances', data: { ...r, reason: c.wallet.get(String(r.currencyCode)) ?? 'order' } }));
  }

  /**
   * The frames of each order state in `states`, in order: the order (spot, and a futures opening
   * order) with `kind` and its version as `updateId`, and a futures position's record. The record's
   * fixed fields are the ones this feed holds, the `new` event's, or read once.
   */
  private async orderFrames(userId: string, states: OrderState[]): Promise<Frame[]> {
    let mine = this.records.get(userId);
    if (!mine) this.records.set(userId, (mine = new Map()));
    const out: Frame[] = [];
    for (const s of states) {
      const key = `${s.kind}:${s.id}`;
      const held = mine.get(key);
      const record = held
        ? withState(s.kind, held, s.state)
        : s.fixed !== undefined
          ? placedRecord(s.kind, s.id, s.fixed, s.state)
          : await this.fixedRead(s);
      if (!record) continue;
      const final = isFinal(s.kind, record);
      if (final) mine.delete(key);
      else mine.set(key, record);
      if (record.role === 'close') continue; // a close order is no record a user reads: its position's state follows
      const v = versionOf(record);
      const row = await this.reader.orderRow(s.kind, record);
      out.push({ channel: 'orders', data: { ...row, kind: s.kind, updateId: v }, order: { key: `orders:${key}`, v, final } });
      if (s.kind === 'futures' && isPosition(record)) {
        out.push({ channel: 'positions', data: row, order: { key: `positions:${key}`, v, final } });
      }
    }
    return out;
  }

  /** An order first seen by its state: its fixed fields read (they never change), with the event's state. */
  private async fixedRead(s: OrderState): Promise<OrderRecord | null> {
    const r = await this.reader.orderRecord(s.kind, s.id);
    return r && withState(s.kind, r, s.state);
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
