// The order book of one market, kept from the gateway's snapshot and seq-numbered updates
// (docs/market-data.md#websocket-gateway-ws-role): an update whose seq is not exactly the last one plus one is a gap, and the book asks
// for a fresh snapshot instead of showing levels it may have missed.

const DEPTH_SHOWN = 18;

export class OrderBook {
  /**
   * @param {{ digitsPrice: number, digitsAmount: number }} market
   * @param {() => void} onGap asks the gateway for a new snapshot
   */
  constructor(market, onGap) {
    this.market = market;
    this.onGap = onGap;
    this.bids = new Map();
    this.asks = new Map();
    this.seq = null;
    this.resyncs = 0;
    this.dirty = true;
  }

  /** Applies one orderbook message; returns false when it was dropped (waiting for a snapshot). */
  apply(msg) {
    if (msg.type === 'snapshot') {
      this.bids = new Map(msg.bids);
      this.asks = new Map(msg.asks);
      this.seq = msg.seq;
      this.dirty = true;
      return true;
    }
    if (this.seq === null || msg.seq <= this.seq) return false;
    if (msg.seq !== this.seq + 1) {
      this.seq = null; // drop everything until the snapshot the resubscription brings
      this.resyncs++;
      this.onGap();
      return false;
    }
    for (const [side, levels] of [
      [this.bids, msg.bids],
      [this.asks, msg.asks],
    ]) {
      for (const [price, qty] of levels) {
        if (qty === 0) side.delete(price);
        else side.set(price, qty);
      }
    }
    this.seq = msg.seq;
    this.dirty = true;
    return true;
  }

  /** Lost connection: the book is stale until the next snapshot. */
  invalidate() {
    this.seq = null;
  }

  sorted(side) {
    const levels = [...(side === 'bids' ? this.bids : this.asks)];
    return levels.sort((a, b) => (side === 'bids' ? b[0] - a[0] : a[0] - b[0]));
  }

  /** Draws the book into the page (at most once per animation frame, by the caller). */
  render(doc) {
    if (!this.dirty) return;
    this.dirty = false;
    const { digitsPrice, digitsAmount } = this.market;
    const bids = this.sorted('bids').slice(0, DEPTH_SHOWN);
    const asks = this.sorted('asks').slice(0, DEPTH_SHOWN);
    const max = Math.max(1e-12, ...bids.map((l) => l[1]), ...asks.map((l) => l[1]));
    const rows = (levels, side) => {
      let total = 0;
      const out = levels.map(([price, qty]) => {
        total += qty;
        const tr = doc.createElement('tr');
        tr.dataset.side = side;
        tr.dataset.price = String(price);
        tr.dataset.qty = String(qty);
        tr.style.backgroundSize = `${Math.round((qty / max) * 100)}% 100%`;
        for (const text of [price.toFixed(digitsPrice), qty.toFixed(digitsAmount), total.toFixed(digitsAmount)]) {
          const td = doc.createElement('td');
          td.textContent = text;
          tr.append(td);
        }
        return tr;
      });
      return out;
    };
    doc.getElementById('asks').replaceChildren(...rows(asks, 'ask').reverse());
    doc.getElementById('bids').replaceChildren(...rows(bids, 'bid'));
    const bestBid = bids[0]?.[0];
    const bestAsk = asks[0]?.[0];
    doc.getElementById('spread').textContent =
      bestBid !== undefined && bestAsk !== undefined
        ? `spread ${(bestAsk - bestBid).toFixed(digitsPrice)} (${(((bestAsk - bestBid) / bestAsk) * 100).toFixed(3)} %)`
        : 'no two-sided market';
    const table = doc.getElementById('book');
    table.dataset.seq = this.seq === null ? '' : String(this.seq);
    table.dataset.resyncs = String(this.resyncs);
    doc.getElementById('book-seq').textContent = this.seq === null ? 'syncing…' : `seq ${this.seq}`;
  }
}
