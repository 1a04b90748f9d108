// Candles of one market with TradingView's lightweight-charts: REST history, then the candles
// channel. For a futures market an index line is drawn over the candles.
// lightweight-charts is served from node_modules by the api role (no CDN, no build step); imported by
// path, as an inline import map would need 'unsafe-inline' in the page's CSP
import {
  CandlestickSeries,
  ColorType,
  HistogramSeries,
  LineSeries,
  createChart,
} from '/vendor/lightweight-charts/lightweight-charts.standalone.production.mjs';

/** A candle (OpenAPI `Candle`) → lightweight-charts bar (time in UTC seconds). */
const bar = (c) => ({
  time: Date.parse(c.openTimestamp) / 1000,
  open: c.openPrice,
  high: c.maxPrice,
  low: c.minPrice,
  close: c.closePrice,
});

export class CandleChart {
  constructor(container) {
    this.chart = createChart(container, {
      autoSize: true,
      layout: { background: { type: ColorType.Solid, color: '#161c24' }, textColor: '#9aa6b2' },
      grid: { vertLines: { color: '#1e2833' }, horzLines: { color: '#1e2833' } },
      // fixLeftEdge: a fresh market's first candles start at the left, not squeezed against the right edge
      timeScale: { timeVisible: true, secondsVisible: false, borderColor: '#243040', barSpacing: 10, rightOffset: 4, fixLeftEdge: true },
      rightPriceScale: { borderColor: '#243040' },
    });
    this.candles = this.chart.addSeries(CandlestickSeries, {
      upColor: '#26a69a', downColor: '#ef5350', wickUpColor: '#26a69a', wickDownColor: '#ef5350', borderVisible: false,
    });
    this.volume = this.chart.addSeries(HistogramSeries, {
      priceScaleId: 'volume', priceFormat: { type: 'volume' }, lastValueVisible: false, priceLineVisible: false,
    });
    this.chart.priceScale('volume').applyOptions({ scaleMargins: { top: 0.82, bottom: 0 } });
    this.index = this.chart.addSeries(LineSeries, {
      color: '#e0c060', lineWidth: 1, lineStyle: 2, title: 'index', priceLineVisible: false, lastValueVisible: true,
    });
    this.lastTime = 0;
  }

  /** Price format of the market shown; a futures market gets its index line. */
  setMarket(market) {
    const precision = market.digitsPrice;
    this.candles.applyOptions({ priceFormat: { type: 'price', precision, minMove: 10 ** -precision } });
    this.index.applyOptions({ visible: market.kind === 'futures', priceFormat: { type: 'price', precision, minMove: 10 ** -precision } });
  }

  /** Replaces everything: candles oldest first; the index line starts again from the next ticker. */
  load(candles) {
    const bars = candles.map(bar);
    this.candles.setData(bars);
    this.volume.setData(candles.map((c) => ({ time: bar(c).time, value: c.volumeBase, color: volumeColor(c) })));
    this.index.setData([]);
    this.lastTime = bars.length ? bars[bars.length - 1].time : 0;
    this.chart.timeScale().scrollToRealTime();
    this.markFirstBar(bars);
  }

  /** Where the first candle is drawn, on the container (`data-first-bar-x`, read by the browser test). */
  markFirstBar(bars) {
    requestAnimationFrame(() => {
      const x = bars.length ? this.chart.timeScale().timeToCoordinate(bars[0].time) : null;
      this.chart.chartElement().parentElement.dataset.firstBarX = x === null ? '' : String(Math.round(x));
    });
  }

  /** One candle from the candles channel: the current one changes in place, a new one appends. */
  update(candle) {
    const b = bar(candle);
    if (b.time < this.lastTime) return; // late message about a candle already past
    this.lastTime = b.time;
    this.candles.update(b);
    this.volume.update({ time: b.time, value: candle.volumeBase, color: volumeColor(candle) });
  }

  /** The index at this moment, drawn at the open of the candle period it falls in. */
  updateIndex(price, period) {
    const time = Math.floor(Date.now() / 1000 / period) * period;
    try {
      this.index.update({ time, value: price });
    } catch {
      // a point older than the line's last one: nothing to draw
    }
  }
}

function volumeColor(c) {
  return c.closePrice >= c.openPrice ? 'rgba(38,166,154,0.45)' : 'rgba(239,83,80,0.45)';
}
