import type { MarketKind } from '../../platform/redis/keys';

export type Channel = 'orderbook' | 'deals' | 'candles' | 'ticker';

/** The uWS topic of one channel of one market (and period, for candles). */
export function topicOf(channel: Channel, kind: MarketKind, market: string, period?: number): string {
  return channel === 'candles' ? `${channel}/${kind}/${market}/${period}` : `${channel}/${kind}/${market}`;
}

/** Where a feed's messages go: the gateway's uWS app. */
export interface Publisher {
  publish(topic: string, message: string): void;
  hasSubscribers(topic: string): boolean;
}
