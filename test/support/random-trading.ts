import { AppError } from '../../src/domain/errors';
import type { AppContext } from '../../src/transport/context';

/** Small deterministic PRNG (mulberry32), so a failing sequence can be replayed from its seed. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const TRADERS = ['t1', 't2', 't3', 't4', 't5'];

export async function fundTraders(ctx: AppContext, base: string, quote: string): Promise<void> {
  for (const u of TRADERS) {
    await ctx.wallets.deposit(u, quote, 10_000_000);
    await ctx.wallets.deposit(u, base, 100_000);
  }
}

/**
 * `count` random commands on one spot market: limit orders around 100 that rest, cross and fill,
 * market orders, and cancels of resting orders.
 */
export async function randomTrading(
  ctx: AppContext,
  pair: string,
  count: number,
  random: () => number,
): Promise<void> {
  const open: { user: string; id: string }[] = [];
  for (let i = 0; i < count; i++) {
    const user = TRADERS[Math.floor(random() * TRADERS.length)];
    const side = random() < 0.5 ? 'buy' : 'sell';
    const roll = random();
    if (roll < 0.2 && open.length > 0) {
      const [o] = open.splice(Math.floor(random() * open.length), 1);
      // filled meanwhile (409) is fine; anything else would leave its reservation behind, so it must show
      await ctx.spot.orders.cancel(o.user, o.id).catch((err: unknown) => {
        if (!(err instanceof AppError && err.status === 409)) throw err;
      });
    } else if (roll < 0.3) {
      const amount = Math.round((0.05 + random() * 0.5) * 1000) / 1000;
      await ctx.spot.orders.place(
        user,
        side === 'buy'
          ? { currencyPairCode: pair, side, type: 'market', quoteAmount: Math.round(amount * 100) }
          : { currencyPairCode: pair, side, type: 'market', amount },
      );
    } else {
      const price = Math.round((100 + (side === 'buy' ? -1 : 1) * (random() * 6 - 1.5)) * 100) / 100;
      const amount = Math.round((0.01 + random()) * 1000) / 1000;
      const { order } = await ctx.spot.orders.place(user, {
        currencyPairCode: pair,
        side,
        type: 'limit',
        price,
        amount,
      });
      if (order.status === 'open' || order.status === 'partiallyFilled')
        open.push({ user, id: String(order.id) });
    }
  }
}
