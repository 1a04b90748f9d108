// The live market page: picks a market, loads its history over REST, then follows the
// market-data websocket (orderbook, deals, candles, ticker channels). Given a token (the sign-in
// field, or `?token=` in the URL), it also follows the user's private stream: open orders and fills.
import { candles, listMarkets, recentTrades, websocketUrl } from './api.js';
import { CandleChart } from './candle-chart.js';
import { FuturesLine } from './futures-line.js';
import { MarketSocket } from './market-socket.js';
import { MyOrders } from './my-orders.js';
import { OrderBook } from './order-book.js';
import { TradeTape } from './trade-tape.js';
import { UserSocket } from './user-socket.js';

const $ = (id) => document.getElementById(id);
const marketKey = (m) => `${m.kind}:${m.code}`;

const page = {
  markets: [],
  market: null,
  period: 60,
  subs: [],
  book: null,
  tape: null,
  /** Bumped on every switch, so a slow response for the previous market is dropped. */
  generation: 0,
};
let chart;
let futuresLine;
let socket;
let userSocket;
// the page's state, for the browser console and the browser test
window.liveMarket = page;

/** The private stream's URL: the market-data socket's, at /ws/user. */
const userUrl = (marketUrl) => marketUrl.replace(/\/ws\/?$/, '') + '/ws/user';

/** Follows the user `token` names: their open orders and fills, live. The token stays in this tab only. */
function signIn(marketUrl, token) {
  userSocket?.close();
  sessionStorage.setItem('token', token);
  const mine = new MyOrders($('my-orders'), $('my-fills'));
  page.mine = mine;
  $('mine').hidden = false;
  const status = $('user-status');
  status.hidden = false;
  userSocket = new UserSocket(userUrl(marketUrl), token, {
    onMessage: (msg) => mine.apply(msg),
    onState: (state, detail) => {
      status.dataset.state = state;
      status.textContent = detail ? `${state} · ${detail}` : state;
    },
  });
  userSocket.connect();
}

function showError(text) {
  const el = $('error');
  el.hidden = !text;
  el.textContent = text ?? '';
}

function subscriptionsFor(market) {
  const base = { market: market.code, kind: market.kind };
  return [
    { channel: 'orderbook', ...base },
    { channel: 'deals', ...base },
    { channel: 'ticker', ...base },
    { channel: 'candles', ...base, period: page.period },
  ];
}

/** REST history of the current market: trades and candles (a futures index line starts empty: no index history is published). */
async function loadHistory() {
  const { market, period, generation } = page;
  const [trades, bars] = await Promise.all([recentTrades(market), candles(market.kind, market.code, period)]);
  if (generation !== page.generation) return;
  page.tape.load(trades);
  chart.load(bars);
  $('trades').dataset.loaded = marketKey(market); // history in: what comes next arrives over the websocket
}

async function selectMarket(market) {
  page.generation++;
  for (const s of page.subs) socket.unsubscribe(s);
  page.market = market;
  location.hash = marketKey(market);
  $('pair').value = marketKey(market);
  $('ticker').textContent = '';
  const orderbookSub = { channel: 'orderbook', market: market.code, kind: market.kind };
  page.book = new OrderBook(market, () => socket.resubscribe(orderbookSub));
  page.tape = new TradeTape(market, $('trades'));
  chart.setMarket(market);
  if (market.kind === 'futures') futuresLine.show(market);
  else futuresLine.hide();
  page.subs = subscriptionsFor(market);
  for (const s of page.subs) socket.subscribe(s);
  await loadHistory().catch((err) => showError(err.message));
}

function onTicker(msg) {
  const m = page.market;
  if (msg.kind !== m.kind || msg.market !== m.code) return;
  if (m.kind === 'futures') {
    // the engine's mark and index (docs/futures.md) ride on the futures ticker
    futuresLine.setPrices(msg);
    if (msg.indexPrice !== null && msg.indexPrice !== undefined) chart.updateIndex(msg.indexPrice, page.period);
  }
  const px = (p) => (p === null || p === undefined ? '—' : p.toFixed(m.digitsPrice));
  $('ticker').innerHTML = '';
  const last = document.createElement('b');
  last.textContent = px(msg.last);
  last.dataset.field = 'last';
  $('ticker').append(last, ` bid ${px(msg.bestBid?.[0])} · ask ${px(msg.bestAsk?.[0])}`);
}

function onMessage(msg) {
  if (msg.channel === 'ticker') return onTicker(msg);
  const m = page.market;
  if (!m || msg.kind !== m.kind || msg.market !== m.code) return; // a market we just left
  if (msg.channel === 'orderbook') page.book.apply(msg);
  else if (msg.channel === 'deals') page.tape.add(msg.deals);
  else if (msg.channel === 'candles' && msg.period === page.period) chart.update(msg.candle);
}

function onState(state, detail) {
  const el = $('status');
  el.dataset.state = state;
  el.textContent = detail ? `${state} · ${detail}` : state;
}

/** After a reconnect the book waits for its new snapshot, and the history fills the gap. */
function onReconnect() {
  page.book?.invalidate();
  if (page.market) loadHistory().catch((err) => showError(err.message));
}

function renderLoop() {
  page.book?.render(document);
  requestAnimationFrame(renderLoop);
}

async function main() {
  chart = new CandleChart($('chart'));
  futuresLine = new FuturesLine($('futures-line'));
  const [markets, url] = await Promise.all([listMarkets(), websocketUrl()]);
  page.markets = markets;
  const select = $('pair');
  for (const kind of ['spot', 'futures']) {
    const group = document.createElement('optgroup');
    group.label = kind === 'spot' ? 'Spot' : 'Futures';
    for (const m of markets.filter((x) => x.kind === kind)) {
      const opt = document.createElement('option');
      opt.value = marketKey(m);
      opt.textContent = `${m.code}${kind === 'futures' ? ' perp' : ''}`;
      group.append(opt);
    }
    if (group.children.length) select.append(group);
  }
  if (markets.length === 0) return showError('No markets are listed yet.');
  socket = new MarketSocket(url, { onMessage, onState, onReconnect });
  socket.connect();
  $('signin').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const token = $('token').value.trim();
    if (token) signIn(url, token);
  });
  const given = new URLSearchParams(location.search).get('token') ?? sessionStorage.getItem('token');
  if (given) signIn(url, given);
  select.addEventListener('change', () => selectMarket(markets.find((m) => marketKey(m) === select.value)));
  $('period').addEventListener('change', () => {
    page.period = Number($('period').value);
    selectMarket(page.market);
  });
  const fromHash = markets.find((m) => marketKey(m) === decodeURIComponent(location.hash.slice(1)));
  await selectMarket(fromHash ?? markets[0]);
  requestAnimationFrame(renderLoop);
}

main().catch((err) => showError(`The page could not start: ${err.message}`));
