import { decimal, feeRatePpm } from './decimal';
import { scales, type Pair } from './market';

/** The futures order statuses (docs/api-contract.md#resources), `futuresOrderStatus` and the `Statuses` filter. */
export const FuturesStatus = {
  Created: 10,
  PositionClosed: 20,
  Cancelled: 30,
  Error: 40,
  InPosition: 50,
} as const;
export const FUTURES_STATUSES = Object.values(FuturesStatus);

/** docs/futures.md: `orderSide` 1 buy/long, 2 sell/short; `tradeType` 1 maker, 2 taker, 3 liquidation. */
export const OrderSide = { Buy: 1, Sell: 2 } as const;
export const TradeType = { Maker: 1, Taker: 2, Liquidation: 3 } as const;

/**
 * Engine parameters of a futures pair, as lua/includes/futures/context.lua derives them from the
 * pair hash: `ns` quote minor units per tick x lot of notional (contractValue included), fee and
 * maintenance rates in ppm, the lot step in lots.
 */
export interface FuturesParams {
  ns: number;
  makerPpm: number;
  takerPpm: number;
  mmrPpm: number;
  lotLots: number;
}

export function futuresParams(p: Pair): FuturesParams {
  const ns = decimal(p.contractValue ?? 1).times(scales(p).quoteScale);
  const lot = decimal(p.lotSize ?? 0).shiftedBy(p.digitsAmount);
  if (!ns.isInteger() || ns.lte(0)) throw new Error(`contractValue of ${p.code} is finer than the quote currency holds`);
  return {
    ns: ns.toNumber(),
    makerPpm: feeRatePpm(p.makerFee),
    takerPpm: feeRatePpm(p.takerFee),
    mmrPpm: feeRatePpm(p.maintenanceMarginRate ?? 0),
    lotLots: lot.isInteger() && lot.gt(0) ? lot.toNumber() : 1,
  };
}
