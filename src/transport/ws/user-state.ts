import { FuturesStatus } from '../../domain/futures';
import type { MarketKind } from '../../domain/market';
import { decodeFuturesOrder, withFuturesState, type FuturesOrderDto } from '../../futures';
import { decodeSpotOrder, withSpotState } from '../../spot';
import type { MinorBalances, WalletParts } from '../../wallet/merged-balances';
import type { AppContext } from '../context';
import { WalletBook } from './user-balances';
import type { UserChannel } from './user-protocol';

type Row = Record<string, unknown>;
/** Every row of a list in one page: the private stream's snapshot is the whole list. */
const ALL = 1_000_000;

/** A futures order still working on the book: Created, or in position with a limit rest not yet filled. */
function isWorking(o: FuturesOrderDto): boolean {
  if (o.futuresOrderStatus === FuturesStatus.Created) return true;
  return o.futuresOrderStatus === FuturesStatus.InPosition && !o.isMarket && o.filled < o.amount;
}

const byId = (a: Row, b: Row) => Number(a.id) - Number(b.id);

/** An order's record (fixed fields and the state of the moment), as the engine stores it, decoded. */
export type OrderRecord = Record<string, string>;

/** Spot statuses after which an order never changes again. */
const SPOT_FINAL = new Set(['filled', 'cancelled', 'expired']);
const FUTURES_FINAL = new Set([FuturesStatus.PositionClosed, FuturesStatus.Cancelled, FuturesStatus.Error].map(String));

/** No state of the order can follow this one: what the private stream keeps of it can go. */
export function isFinal(kind: MarketKind, r: OrderRecord): boolean {
  return kind === 'spot' ? SPOT_FINAL.has(r.status) : r.role === 'close' || FUTURES_FINAL.has(r.status);
}

/** A futures opening order's record that is a position's (GET /api/futures/trade/positions lists it). */
export function isPosition(r: OrderRecord): boolean {
  return r.role === 'open' && (r.status === String(FuturesStatus.InPosition) || r.status === String(FuturesStatus.PositionClosed));
}

/** A record with the state of an `st` event (docs/events.md). */
export function withState(kind: MarketKind, r: OrderRecord, state: string): OrderRecord {
  return kind === 'spot' ? withSpotState(r, state) : withFuturesState(r, state);
}

/** A new order's record from its `new` and first `st` events. */
export function placedRecord(kind: MarketKind, id: string, fixed: string, state: string): OrderRecord | null {
  return kind === 'spot' ? decodeSpotOrder(id, { spot: fixed, state }) : decodeFuturesOrder({ futures: fixed, state });
}

/** An order's version (its record's `v`, 0 before the field existed): the frame's `updateId`. */
export const versionOf = (r: OrderRecord): number => Number(r.v ?? 0);

/**
 * A snapshot: its rows and the version of every order it read (`<channel>:<kind>:<id>`), shown or
 * not; a balances snapshot also the wallet it shows, each shard's part with its balance sequence.
 */
export interface Snapshot {
  rows: Row[];
  versions: Map<string, number>;
  wallet?: WalletBook;
}

/**
 * The private stream's reads of a user's state, through the same services the REST routes call,
 * so a frame carries a record exactly as REST reads it at that moment. Orders and positions are
 * built from their records with the services' own DTOs, so a state from an engine event and one
 * read give the same row.
 */
export class UserStateReader {
  constructor(private readonly ctx: Pick<AppContext, 'spot' | 'futures' | 'wallets'>) {}

  /** An order's record, read (the fixed fields of an order placed before the stream saw it); null when there is none. */
  async orderRecord(kind: MarketKind, id: string): Promise<OrderRecord | null> {
    if (kind === 'spot') return (await this.ctx.spot.orders.records([id]))[0] ?? null;
    const r = await this.ctx.futures.orders.record(Number(id));
    return r.kind === 'futures' ? r : null;
  }

  /** The REST row of a record: GET /api/orders/{id}, or the futures `FuturesOrder` (valued at the mark now). */
  async orderRow(kind: MarketKind, r: OrderRecord): Promise<Row> {
    return kind === 'spot' ? { ...(await this.ctx.spot.orders.dto(r)) } : { ...(await this.ctx.futures.orders.dto(r)) };
  }

  /**
   * Wallet rows (GET /api/wallet/balances) of `currencies` as `book` holds them, `account:
   * "wallet"`: built from the engine's balance events, no read.
   */
  async walletRows(book: WalletBook, currencies: Iterable<string>): Promise<Row[]> {
    const minor: MinorBalances = new Map();
    for (const cur of currencies) {
      const { available, reserved } = book.row(cur);
      minor.set(cur, { available: available.toString(), reserved: reserved.toString() });
    }
    return (await this.ctx.wallets.dtos(minor)).map((r) => ({ account: 'wallet', ...r }));
  }

  /** The wallet of one consistent moment, each shard's part with its balance sequence (WalletService.parts). */
  walletParts(userId: string): Promise<WalletParts> {
    return this.ctx.wallets.parts(userId);
  }

  /** Futures accounts (GET /api/futures/accounts), `account: "futures"`. */
  async accounts(userId: string): Promise<Row[]> {
    return (await this.ctx.futures.accounts.list(userId)).map((a) => ({ account: 'futures', ...a }));
  }

  /**
   * A channel's snapshot: open spot and futures orders (each with its version as `updateId`); wallet
   * and futures account balances; open positions; fills have no state (the trade history is read
   * over REST), so theirs is empty. Oldest first. Orders and positions are listed as REST lists
   * them, then read again as records, so each row and its version come from one read.
   */
  async snapshot(userId: string, channel: UserChannel): Promise<Snapshot> {
    const { spot, futures } = this.ctx;
    const versions = new Map<string, number>();
    const rowsOf = async (kind: MarketKind, records: OrderRecord[], keep: (r: OrderRecord, row: Row) => boolean, updateId: boolean) => {
      const rows: Row[] = [];
      for (const r of records) {
        versions.set(`${channel}:${kind}:${r.id}`, versionOf(r));
        const row = await this.orderRow(kind, r);
        if (keep(r, row)) rows.push({ ...row, ...(updateId ? { kind, updateId: versionOf(r) } : {}) });
      }
      return rows;
    };
    const futuresRecords = async (ids: number[]) =>
      (await Promise.all(ids.map((id) => futures.orders.record(id)))).filter((r) => r.kind === 'futures');
    switch (channel) {
      case 'orders': {
        const [open, partial, fut] = await Promise.all([
          spot.orders.list(userId, { page: 1, pageSize: ALL, status: 'open' }),
          spot.orders.list(userId, { page: 1, pageSize: ALL, status: 'partiallyFilled' }),
          futures.orders.ordersHistory(userId, {
            Page: 1,
            PageSize: ALL,
            Statuses: [FuturesStatus.Created, FuturesStatus.InPosition],
          }),
        ]);
        const spotRecords = await spot.orders.records([...open.items, ...partial.items].map((o) => String(o.id)));
        const spotRows = await rowsOf('spot', spotRecords, (r) => !isFinal('spot', r), true);
        const futuresRows = await rowsOf(
          'futures',
          await futuresRecords(fut.map((o) => o.id)),
          (_r, row) => isWorking(row as unknown as FuturesOrderDto),
          true,
        );
        return { rows: [...spotRows, ...futuresRows].sort(byId), versions };
      }
      case 'balances': {
        const [parts, accounts] = await Promise.all([this.walletParts(userId), this.accounts(userId)]);
        const wallet = new WalletBook(parts);
        return { rows: [...(await this.walletRows(wallet, wallet.currencies())), ...accounts], versions, wallet };
      }
      case 'positions': {
        const open = await futures.orders.positions(userId, { Page: 1, PageSize: ALL, IsActive: true });
        const rows = await rowsOf(
          'futures',
          await futuresRecords(open.map((o) => o.id)),
          (r) => r.status === String(FuturesStatus.InPosition),
          false,
        );
        return { rows: rows.sort(byId), versions };
      }
      case 'fills':
        return { rows: [], versions };
    }
  }
}
