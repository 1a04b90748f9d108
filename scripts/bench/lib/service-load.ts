import type { PlaceSpotRequest, SpotOrderService } from '../../../src/spot/spot-order.service';

export interface ServiceLoadResult {
  ok: number;
  errors: number;
  firstError?: string;
  /** Replies by order status (open, filled, ...). */
  statuses: Record<string, number>;
}

/**
 * Places `orders` through the spot order service (the path an api request takes: pair lookup, home,
 * escrow top-ups with their transfers and relay steps, group commit), `concurrency` at a time in
 * the given order.
 */
export async function serviceLoad(
  service: SpotOrderService,
  orders: { userId: string; req: PlaceSpotRequest }[],
  concurrency: number,
): Promise<ServiceLoadResult> {
  const out: ServiceLoadResult = { ok: 0, errors: 0, statuses: {} };
  let next = 0;
  const worker = async () => {
    while (next < orders.length) {
      const o = orders[next++];
      try {
        const { order } = await service.place(o.userId, o.req);
        out.ok++;
        out.statuses[order.status] = (out.statuses[order.status] ?? 0) + 1;
      } catch (err) {
        out.errors++;
        out.firstError ??= String(err);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, orders.length) }, worker));
  return out;
}
