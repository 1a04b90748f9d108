// The futures line: mark, index, funding rate and the time to the next funding round.
//
// Index and mark come from where the engine takes them (DESIGN 4, docs/futures.md): the index is
// the last trade of the spot market with the same code, and mark = index. The page reads that
// spot market's ticker channel. A futures pair without a spot twin has its index set by an
// operator (POST /api/admin/index-price), which no public endpoint publishes: then the index shows
// a dash and the mark falls back to the futures last price, as the engine's does when it has no
// index. Funding comes from the futures pair listing.

import { futuresFunding } from './api.js';

export class FuturesLine {
  constructor(element) {
    this.el = element;
    this.market = null;
    this.index = null;
    this.last = null;
    this.funding = null;
    this.timer = null;
  }

  /** Shows the line for a futures market (spotTwin: the spot market of the same code, if listed). */
  show(market, spotTwin) {
    this.hide();
    this.market = market;
    this.spotTwin = spotTwin;
    this.el.hidden = false;
    const refresh = () =>
      futuresFunding(market.code)
        .then((f) => {
          if (this.market === market) this.funding = f;
          this.render();
        })
        .catch(() => undefined);
    refresh();
    this.timer = setInterval(refresh, 5000);
    this.ticker = setInterval(() => this.render(), 1000);
  }

  hide() {
    clearInterval(this.timer);
    clearInterval(this.ticker);
    this.market = null;
    this.index = this.last = this.funding = null;
    this.el.hidden = true;
  }

  setIndex(price) {
    this.index = price;
    this.render();
  }

  setLast(price) {
    this.last = price;
    this.render();
  }

  render() {
    const m = this.market;
    if (!m) return;
    const px = (p) => (p === null || p === undefined ? '—' : p.toFixed(m.digitsPrice));
    const parts = [
      ['Mark', px(this.index ?? this.last)],
      ['Index', `${px(this.index)}${this.spotTwin ? ` (spot ${this.spotTwin.code} last)` : ' (operator-set, not published)'}`],
      ['Last', px(this.last)],
    ];
    if (this.funding) {
      const rate = this.funding.fundingRate * 100;
      parts.push(['Funding', `${rate >= 0 ? '+' : ''}${rate.toFixed(4)} %`]);
      parts.push(['Next funding in', countdown(Date.parse(this.funding.fundingRateFinishTimestamp) - Date.now())]);
    }
    const doc = this.el.ownerDocument;
    this.el.replaceChildren(
      ...parts.flatMap(([label, value]) => {
        const b = doc.createElement('b');
        b.textContent = value;
        b.dataset.field = label.toLowerCase().replace(/\s+/g, '-');
        return [doc.createTextNode(`${label} `), b];
      }),
    );
  }
}

function countdown(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  const two = (n) => String(n).padStart(2, '0');
  return `${two(Math.floor(s / 3600))}:${two(Math.floor((s % 3600) / 60))}:${two(s % 60)}`;
}
