import type { MarketStore } from '../markets';
import type { MarketKind } from '../platform/redis/keys';
import type { Scripts } from '../platform/redis/scripts';

/** Aggregated levels in engine units (ticks, lots), best first, with the sequence they belong to. */
export interface BookSnapshot {
  seq: number;
  streamId: string;
  bids: [string, string][];
  asks: [string, string][];
}

const pairsOf = (flat: string[]): [string, string][] => {
  const out: [string, string][] = [];
  for (let i = 0; i < flat.length; i += 2) out.push([flat[i], flat[i + 1]]);
  return out;
};

/** Reads any market's book atomically, on its shard; REST and the websocket gateway both answer from this. */
export class BookReader {
  constructor(
    private readonly markets: Pick<MarketStore, 'keysOf'>,
    private readonly scripts: Scripts,
  ) {}

  async snapshot(kind: MarketKind, pairCode: string, depth: number): Promise<BookSnapshot> {
    const k = await this.markets.keysOf(kind, pairCode);
    const [seq, streamId, bids, asks] = await this.scripts.run<[string, string, string[], string[]]>(
      'getBookSnapshot',
      [
        k.levels(kind, pairCode, 'bids'), k.levels(kind, pairCode, 'asks'),
        k.levelQty(kind, pairCode, 'bids'), k.levelQty(kind, pairCode, 'asks'),
        k.bookSeq(kind, pairCode), k.events(kind, pairCode),
      ],
      [depth],
    );
    return { seq: Number(seq), streamId, bids: pairsOf(bids), asks: pairsOf(asks) };
  }
}
