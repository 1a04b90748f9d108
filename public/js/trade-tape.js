// The latest trades of one market, newest on top: REST history first, then the deals channel.

const ROWS = 40;

export class TradeTape {
  constructor(market, tbody) {
    this.market = market;
    this.tbody = tbody;
    this.trades = [];
    this.seen = new Set();
  }

  /**
   * History from REST, newest first. Deals the channel delivered while the request was out and
   * that are newer than the history's newest stay on top.
   */
  load(trades) {
    const newest = Math.max(-1, ...trades.map((t) => t.id ?? -1));
    const live = this.trades.filter((t) => t.id !== undefined && t.id > newest).reverse();
    this.trades = [];
    this.seen.clear();
    this.add([...trades].reverse());
    this.add(live);
  }

  /** New trades, oldest first (a deals message's order); repeats of a known id are skipped. */
  add(trades) {
    for (const t of trades) {
      if (t.id !== undefined) {
        if (this.seen.has(t.id)) continue;
        this.seen.add(t.id);
      }
      this.trades.unshift(t);
    }
    this.trades.length = Math.min(this.trades.length, ROWS);
    this.render();
  }

  render() {
    const { digitsPrice, digitsAmount } = this.market;
    const doc = this.tbody.ownerDocument;
    this.tbody.replaceChildren(
      ...this.trades.map((t) => {
        const tr = doc.createElement('tr');
        tr.dataset.side = t.side;
        if (t.id !== undefined) tr.dataset.tradeId = String(t.id);
        const time = new Date(t.timestamp).toLocaleTimeString([], { hour12: false });
        for (const text of [time, t.price.toFixed(digitsPrice), t.amount.toFixed(digitsAmount)]) {
          const td = doc.createElement('td');
          td.textContent = text;
          tr.append(td);
        }
        return tr;
      }),
    );
  }
}
