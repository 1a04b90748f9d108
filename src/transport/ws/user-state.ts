import { AppError } from '../../domain/errors';
import { FuturesStatus } from '../../domain/futures';
import type { MarketKind } from '../../domain/market';
import type { FuturesOrderDto } from '../../futures';
import type { AppContext } from '../context';
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

/**
 * The private stream's reads of a user's state, through the same services the REST routes call,
 * so a frame carries a record exactly as REST reads it at that moment.
 */
export class UserStateReader {
  constructor(private readonly ctx: Pick<AppContext, 'spot' | 'futures' | 'wallets'>) {}

  /** One order as GET /api/orders/{id} or the futures orders-history reads it; null when it is none of the user's. */
  async order(userId: string, kind: MarketKind, id: string): Promise<Row | null> {
    const dto =
      kind === 'spot'
        ? await orNull(this.ctx.spot.orders.get(userId, id))
        : await orNull(this.ctx.futures.orders.get(userId, Number(id)));
    return dto && { ...dto, kind };
  }

  /** A position's record (GET /api/futures/trade/positions), null when the order never filled. */
  async position(userId: string, id: string): Promise<Row | null> {
    const dto = await orNull(this.ctx.futures.orders.get(userId, Number(id)));
    const positional: number[] = [FuturesStatus.InPosition, FuturesStatus.PositionClosed];
    return dto && positional.includes(dto.futuresOrderStatus) ? { ...dto } : null;
  }

  /** Wallet rows (GET /api/wallet/balances) of the currencies given, `account: "wallet"`. */
  async wallet(userId: string, currencies?: Set<string>): Promise<Row[]> {
    const rows = await this.ctx.wallets.balances(userId);
    return rows.filter((r) => !currencies || currencies.has(r.currencyCode)).map((r) => ({ account: 'wallet', ...r }));
  }

  /** Futures accounts (GET /api/futures/accounts), `account: "futures"`. */
  async accounts(userId: string): Promise<Row[]> {
    return (await this.ctx.futures.accounts.list(userId)).map((a) => ({ account: 'futures', ...a }));
  }

  /**
   * A channel's snapshot: open spot and futures orders; wallet and futures account balances; open
   * positions; fills have no state (the trade history is read over REST), so theirs is empty.
   * Oldest first.
   */
  async snapshot(userId: string, channel: UserChannel): Promise<Row[]> {
    const { spot, futures } = this.ctx;
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
        const spotRows = [...open.items, ...partial.items].map((o) => ({ ...o, kind: 'spot' }));
        const futuresRows = fut.filter(isWorking).map((o) => ({ ...o, kind: 'futures' }));
        return [...spotRows, ...futuresRows].sort(byId);
      }
      case 'balances': {
        const [wallet, accounts] = await Promise.all([this.wallet(userId), this.accounts(userId)]);
        return [...wallet, ...accounts];
      }
      case 'positions': {
        const rows = await futures.orders.positions(userId, { Page: 1, PageSize: ALL, IsActive: true });
        return rows.map((r) => ({ ...r })).sort(byId);
      }
      case 'fills':
        return [];
    }
  }
}

/** A record that is not the user's (404) reads as none: a frame is only sent for the owner's state. */
async function orNull<T>(read: Promise<T>): Promise<T | null> {
  try {
    return await read;
  } catch (err) {
    if (err instanceof AppError && err.status === 404) return null;
    throw err;
  }
}
