import type { MarketKind } from '../../platform/redis/keys';

/**
 * Which BullMQ queue hears which market streams. The dispatcher hands each stream entry to every
 * route whose kinds include the stream's market kind (and, when `events` is given, only entries
 * holding at least one of those event kinds). Job data: StreamJob (src/platform/queues.ts).
 */
export interface StreamRoute {
  queue: string;
  kinds: MarketKind[];
  events?: string[];
}

export const STREAM_ROUTES: StreamRoute[] = [
  { queue: 'candles', kinds: ['spot', 'futures'], events: ['trade'] },
  { queue: 'futures-triggers', kinds: ['spot', 'futures'], events: ['trade', 'index'] },
  { queue: 'copy-mirror', kinds: ['futures'], events: ['trade', 'done', 'trigger'] },
];
