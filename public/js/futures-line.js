// The futures line: mark, index, funding rate and the time to the next funding round.
//
// Mark and index are the engine's (docs/futures.md: index = median of the fresh sources,
// mark = median of three), as the futures ticker channel carries them (`markPrice`, `indexPrice`,
// null until the mark tick has run); last is the ticker's last futures trade. Funding comes from the
// futures pair listing.

import { futuresFunding } from './api.js';

export class FuturesLine {
  constructor(element) {
    this.el = element;
    this.market = null;
    this.mark = null;
    this.index = null;
    this.last = null;
    this.funding = null;
    this.timer = null;
  }

  /** Shows the line for a futures market. */
  show(market) {
    this.hide();
    this.market = market;
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
    this.mark = this.index = this.last = this.funding = null;
    this.el.hidden = true;
  }

  /** From a futures ticker message: markPrice, indexPrice, last (each null when unknown). */
  setPrices(ticker) {
    this.mark = ticker.markPrice ?? null;
    this.index = ticker.indexPrice ?? null;
    this.last = ticker.last ?? null;
    this.render();
  }

  render() {
    const m = this.market;
    if (!m) return;
    const px = (p) => (p === null || p === undefined ? '—' : p.toFixed(m.digitsPrice));
    const parts = [
      ['Mark', px(this.mark)],
      ['Index', px(this.index)],
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
