import { copyFileSync, existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { startApiRole } from '../../src/transport/http/server';
import { startWorkerRole } from '../../src/transport/workers/worker-role';
import { startWsRole } from '../../src/transport/ws/ws-role';
import { bearer, testContext, tokenFor } from '../support/harness';

/**
 * The live market page in headless Chromium against the api and ws roles of this process: the
 * book it shows is the book GET /api/orderbook returns, and the next trade reaches the screen.
 */
/** The little of the page's DOM the predicates below read (they run in the browser; this project compiles without lib dom). */
declare const document: {
  getElementById(id: string): { dataset: Record<string, string | undefined> } | null;
  querySelector(selector: string): { textContent: string | null } | null;
  body: { innerText: string };
  addEventListener(type: 'securitypolicyviolation', listener: (e: { violatedDirective: string; blockedURI: string }) => void): void;
};
declare const window: { reportCspViolation(v: string): void };

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const PAIR = 'BTC_USDT';
const DIGITS = { price: 2, amount: 6 }; // config/markets.json, spot BTC_USDT

type Ctx = Awaited<ReturnType<typeof testContext>>;
type Level = { price: number; quantity: number };
let ctx: Ctx;
let api: { port: number; close(): Promise<void> };
let ws: { port: number; close(): Promise<void> };
let worker: { close(): Promise<void> } | undefined; // builds the candles the chart loads
let browser: BrowserContext | undefined;
let page: Page;
const pageErrors: string[] = [];
/** What the browser reports of the Content-Security-Policy helmet sets: nothing may be blocked (issue 26 finding 10). */
const cspViolations: string[] = [];
const outDir = mkdtempSync(join(tmpdir(), 'live-page-'));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function call<T>(method: string, path: string, user?: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (user) headers.authorization = bearer(user, user === 'admin');
  const res = await fetch(`http://127.0.0.1:${api.port}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as T;
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

const restBook = () => call<{ seq: number; bids: Level[]; asks: Level[] }>('GET', `/api/orderbook/${PAIR}?depth=1000`);
const limit = (user: string, side: 'buy' | 'sell', price: number, amount: number) =>
  call('POST', '/api/orders', user, { currencyPairCode: PAIR, side, type: 'limit', price, amount });

/** The rows of one side of the book as the page shows them: [price text, amount text]. */
const shownSide = (side: 'bids' | 'asks') =>
  page.$$eval(`#${side} tr`, (rows) => rows.map((r) => [...r.querySelectorAll('td')].slice(0, 2).map((td) => td.textContent)));

const asShown = (levels: Level[]) =>
  levels.map((l) => [l.price.toFixed(DIGITS.price), l.quantity.toFixed(DIGITS.amount)]);

/** Waits until the page's book stands at `seq`, then compares every row with the REST book. */
async function expectPageBookToEqual(book: { seq: number; bids: Level[]; asks: Level[] }): Promise<void> {
  // predicates as functions, not strings: the page's CSP refuses the eval a string predicate needs
  await page.waitForFunction((seq) => document.getElementById('book')?.dataset.seq === seq, String(book.seq), {
    timeout: 30_000,
  });
  expect(await shownSide('bids')).toEqual(asShown(book.bids)); // best (highest) first
  expect(await shownSide('asks')).toEqual(asShown(book.asks).reverse()); // best (lowest) at the bottom, by the spread
}

async function screenshot(name: string): Promise<void> {
  const file = join(outDir, name);
  await page.screenshot({ path: file, fullPage: true });
  if (process.env.SCREENSHOT_DIR) {
    mkdirSync(process.env.SCREENSHOT_DIR, { recursive: true });
    copyFileSync(file, join(process.env.SCREENSHOT_DIR, name));
  }
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is not installed at ${CHROMIUM}: this test needs it (apt-get install -y chromium; .ci/run installs it, CHROMIUM_PATH points elsewhere)`,
    );
  }
  // the page learns the ws port from /config.json, which reports the configured WS_PORT
  ctx = await testContext({ WS_PORT: String(await freePort()) });
  ws = await startWsRole(ctx);
  worker = await startWorkerRole(ctx);
  api = await startApiRole(ctx, 0);
  for (const [user, currency, amount] of [
    ['maker', 'BTC', 10],
    ['maker', 'USDT', 1_000_000],
    ['taker', 'USDT', 1_000_000],
  ] as const) {
    await call('POST', '/api/admin/deposits', 'admin', { userId: user, currencyCode: currency, amount });
  }
  browser = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'chromium-profile-')), {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
    viewport: { width: 1400, height: 800 },
  });
  page = await browser.newPage();
  page.on('pageerror', (err) => pageErrors.push(err.message));
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) cspViolations.push(`${page.url()}: ${m.text()}`);
  });
  await page.exposeFunction('reportCspViolation', (v: string) => cspViolations.push(v));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) =>
      window.reportCspViolation(`${e.violatedDirective} ${e.blockedURI}`),
    );
  });
});

afterAll(async () => {
  await browser?.close();
  await worker?.close();
  await api?.close();
  await ws?.close();
  await ctx?.cleanup();
});

describe('live market page', () => {
  it('shows the book the REST API returns, and the next trade arrives on screen', async () => {
    const bids = [64_990.5, 64_980, 64_975.25, 64_900];
    const asks = [65_010, 65_020.75, 65_050, 65_100.1];
    for (const [i, price] of bids.entries()) await limit('maker', 'buy', price, 0.01 * (i + 1));
    for (const [i, price] of asks.entries()) await limit('maker', 'sell', price, 0.02 * (i + 1));

    await page.goto(`http://127.0.0.1:${api.port}/#spot:${PAIR}`);
    await page.waitForSelector('#status[data-state="live"]', { timeout: 30_000 });
    const before = await restBook();
    expect(before.bids).toHaveLength(bids.length);
    expect(before.asks).toHaveLength(asks.length);
    await expectPageBookToEqual(before);
    await page.waitForSelector(`#trades[data-loaded="spot:${PAIR}"]`, { state: 'attached', timeout: 30_000 });

    // a market buy that takes the best ask and part of the next level: two trades
    await call('POST', '/api/orders', 'taker', { currencyPairCode: PAIR, side: 'buy', type: 'market', quoteAmount: 2000 });
    const [trade] = await call<{ id: number; price: number; amount: number }[]>('GET', `/api/trades/${PAIR}?limit=1`);
    const row = page.locator(`#trades tr[data-trade-id="${trade.id}"]`);
    await row.waitFor({ timeout: 30_000 });
    const cells = await row.locator('td').allTextContents();
    expect(cells.slice(1)).toEqual([trade.price.toFixed(DIGITS.price), trade.amount.toFixed(DIGITS.amount)]);

    // the updates after the trade keep the page's book equal to REST
    const after = await restBook();
    expect(after.seq).toBeGreaterThan(before.seq);
    expect(after.asks.length).toBeLessThan(before.asks.length);
    await expectPageBookToEqual(after);
    await screenshot('live-page.png');
    expect(pageErrors).toEqual([]);
    expect(cspViolations).toEqual([]);
    const headers = (await fetch(`http://127.0.0.1:${api.port}/`)).headers;
    expect(headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    expect(headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('after a seq gap it resubscribes and shows the REST book again', async () => {
    const seq = Number(await page.getAttribute('#book', 'data-seq'));
    // an update two ahead of the page's book: it must not be applied, and a fresh snapshot asked for
    await page.evaluate(
      `window.liveMarket.book.apply({ channel: 'orderbook', type: 'update', market: '${PAIR}', kind: 'spot', seq: ${seq + 2}, bids: [[1, 1]], asks: [] })`,
    );
    await limit('maker', 'buy', 64_950, 0.05);
    await expectPageBookToEqual(await restBook());
    expect(await page.getAttribute('#book', 'data-resyncs')).toBe('1');
    expect(await shownSide('bids')).not.toContainEqual(['1.00', '1.000000']);
  });

  it("a futures market's line shows the mark and index the futures ticker carries", async () => {
    await call('POST', '/api/admin/index-price', 'admin', { currencyPairCode: PAIR, price: 65_432.1 });
    await page.selectOption('#pair', `futures:${PAIR}`);
    await page.waitForSelector(`#trades[data-loaded="futures:${PAIR}"]`, { state: 'attached', timeout: 30_000 });
    // the mark tick (the mark worker's job) stores index and mark and announces them on the market stream
    const pair = await ctx.markets.store.getPair('futures', PAIR);
    if (!pair) throw new Error('no futures pair');
    await ctx.futures.prices.refreshMark(pair);
    const stored = await ctx.redis.hgetall(ctx.keys.markPrice(PAIR));
    const shown = (ticks: string) => (Number(ticks) / 10 ** pair.digitsPrice).toFixed(pair.digitsPrice);
    for (const [field, ticks] of [['mark', stored.p], ['index', stored.index]]) {
      await page.waitForFunction(
        ([f, text]) => document.querySelector(`#futures-line [data-field="${f}"]`)?.textContent === text,
        [field, shown(ticks)] as const,
        { timeout: 30_000 },
      );
    }
    expect(pageErrors).toEqual([]);
    await page.selectOption('#pair', `spot:${PAIR}`);
    await page.waitForSelector(`#trades[data-loaded="spot:${PAIR}"]`, { state: 'attached', timeout: 30_000 });
  });

  it('reconnects when the gateway goes away and resubscribes on the new one', async () => {
    await ws.close();
    await page.waitForSelector('#status[data-state="reconnecting"]', { timeout: 30_000 });
    await limit('maker', 'sell', 65_200, 0.03); // a change the page can only learn from the new gateway
    ws = await startWsRole(ctx);
    await page.waitForSelector('#status[data-state="live"]', { timeout: 30_000 });
    const book = await restBook();
    expect(book.asks.map((l) => l.price)).toContain(65_200);
    await expectPageBookToEqual(book);
    expect(pageErrors).toEqual([]);
  });

  it("with a token, it shows the user's open orders and their fills live", async () => {
    await page.fill('#token', tokenFor('maker'));
    await page.click('#signin button');
    await page.waitForSelector('#user-status[data-state="live"]', { timeout: 30_000 });
    type Order = { id: number; status: string };
    const open = async () =>
      (await call<{ items: Order[] }>('GET', '/api/orders?pageSize=500', 'maker')).items
        .filter((o) => o.status === 'open' || o.status === 'partiallyFilled')
        .map((o) => String(o.id));
    const shownOrders = () => page.$$eval('#my-orders tr', (rows) => rows.map((r) => r.getAttribute('data-order-id')));
    const expectShown = async (ids: string[]) => {
      await page.waitForFunction(
        `JSON.stringify([...document.querySelectorAll('#my-orders tr')].map((r) => r.dataset.orderId).sort()) === '${JSON.stringify([...ids].sort())}'`,
        undefined,
        { timeout: 30_000 },
      );
      expect((await shownOrders()).sort()).toEqual([...ids].sort());
    };
    await expectShown(await open());
    // a new resting order appears, and a taker's fill of the best ask shows as the maker's fill
    await limit('maker', 'buy', 64_000, 0.01);
    await expectShown(await open());
    await call('POST', '/api/orders', 'taker', { currencyPairCode: PAIR, side: 'buy', type: 'market', quoteAmount: 100 });
    const [fill] = await call<{ id: number }[]>('GET', `/api/trades/${PAIR}/user?limit=1`, 'maker');
    await page.locator(`#my-fills tr[data-trade-id="${fill.id}"]`).waitFor({ timeout: 30_000 });
    expect(await page.locator(`#my-fills tr[data-trade-id="${fill.id}"] td`).last().textContent()).toBe('maker');
    await expectShown(await open());
    await screenshot('live-page-signed-in.png');
    expect(pageErrors).toEqual([]);
  });

  it("a fresh market's first candles start at the left of the chart, not squeezed against the right edge", async () => {
    // the worker role has built the candle of this test file's trades; a pair switch reloads the chart
    await page.selectOption('#pair', `futures:${PAIR}`);
    await page.waitForSelector(`#trades[data-loaded="futures:${PAIR}"]`, { state: 'attached', timeout: 30_000 });
    await page.selectOption('#pair', `spot:${PAIR}`);
    await page.waitForFunction(() => (document.getElementById('chart')?.dataset.firstBarX ?? '') !== '', undefined, {
      timeout: 30_000,
    });
    const x = Number(await page.getAttribute('#chart', 'data-first-bar-x'));
    const width = await page.$eval('#chart', (el) => el.clientWidth);
    expect(x).toBeGreaterThanOrEqual(0);
    expect(x).toBeLessThan(width * 0.2);
    await screenshot('live-page-fresh-chart.png');
  });

  it('Swagger UI and the queue dashboard work under the same CSP: nothing blocked', async () => {
    await page.goto(`http://127.0.0.1:${api.port}/api/docs/`);
    await page.waitForSelector('.swagger-ui .info .title', { timeout: 30_000 });
    await page.waitForSelector('.opblock', { timeout: 30_000 }); // the operations, from /api/openapi.json
    await page.goto(`http://127.0.0.1:${api.port}/admin/queues?token=${tokenFor('ops', true)}`);
    await page.waitForFunction(() => document.body.innerText.includes('candles'), undefined, { timeout: 30_000 });
    expect(pageErrors).toEqual([]);
    expect(cspViolations).toEqual([]);
  });
});
