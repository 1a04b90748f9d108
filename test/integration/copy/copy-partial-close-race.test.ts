import { parseEntry } from '../../../src/platform/market-event';
import type { Fault } from '../../support/fault-proxy';
import { ProxiedRedis } from '../../support/proxied-redis';
import { copyBed, type CopyBed } from './helpers';

/**
 * Issue 24 finding 7: a master's partial close that fills in two trades is two master events, two
 * fan-out jobs, which the worker runs at once (COPY_FANOUT_CONCURRENCY). Each must close its own
 * fraction of what the follower holds when it runs: the master closes 1/2 of 1.2 as 0.3 (1/4 of
 * 1.2) and then 0.3 (1/3 of the 0.9 left), so the follower closes 1/2, not 1/4 + 1/3 = 7/12 of its
 * position, whichever job runs first and however often either is replayed.
 */
let b: CopyBed;

const TRADE = '/api/futures/trade';

type Rec = { id: number; clientOrderId: string | null; amountInPosition: number; futuresOrderStatus: number };

async function setup() {
  const mm = await b.fundedAccount('mm', 1_000_000, 10);
  await b.order('mm', mm, true, 98, 50);
  await b.order('mm', mm, false, 100.2, 50);
  const m = await b.master('max');
  const sam = await b.slave('sam', 5_000);
  await b.subscribe('sam', m, sam, 1_000);
  const mOrder = await b.order('max', m, true, null, 1.2);
  await b.pump();
  const [f] = (await b.orders('sam')).filter((o: Rec) => o.clientOrderId?.startsWith('copy:')) as Rec[];
  // 1.2 × 1,000 / (10,000 − 0.06 of fee), down to the lot
  expect(f).toMatchObject({ futuresOrderStatus: 50, amountInPosition: 0.12 });
  // a bid of 0.3 at 99 above mm's 98: the master's close of 0.6 fills in two trades
  const carol = await b.fundedAccount('carol');
  await b.order('carol', carol, true, 99, 0.3);
  return { mOrder, f };
}

/** The fan-out chunks of the newest futures stream entry, as the copy-mirror job cuts them. */
async function chunksOfLastEntry() {
  const [[id, fields]] = await b.ctx.redis.xrevrange(b.ctx.keys.events('futures', 'BTC_USDT'), '+', '-', 'COUNT', 1);
  const entry = parseEntry(id, fields);
  return b.ctx.copy.mirror.plan({ kind: 'futures', pair: 'BTC_USDT', entryId: entry.id, events: entry.events, ts: entry.ts });
}

/** The master closes half its 1.2 (0.6 at market, in two trades); returns the two fan-out chunks of that entry. */
async function masterClosesHalf(mOrder: number) {
  const r = await b.put('max', `${TRADE}/close`, { orderId: mOrder, isMarket: true, amount: 0.6 });
  expect(r.body).toMatchObject({ futuresOrderStatus: 50, amountInPosition: 0.6 });
  const chunks = await chunksOfLastEntry();
  expect(chunks.map((c) => c.event.kind === 'close' && [c.event.lots, c.event.openAfter])).toEqual([['3000', '9000'], ['3000', '6000']]);
  return chunks;
}

type Chunk = Awaited<ReturnType<typeof chunksOfLastEntry>>[number];
const run = (c: Chunk) => b.ctx.copy.mirror.fanout.run(c);

/** Replayed, alone and at once (a re-dispatched entry, a retried job): nothing more closes. */
async function expectReplaysCloseNothing(chunks: Chunk[], positionId: number) {
  await Promise.all([...chunks, ...chunks].map(run));
  for (const c of chunks) await run(c);
  expect((await b.record('sam', positionId)).amountInPosition).toBe(0.06);
}

describe('two fan-out jobs of one master close', () => {
  beforeEach(async () => {
    b = await copyBed();
  });
  afterEach(async () => b.ctx.cleanup());

  it.each([
    ['at once', 'both'],
    ['the second close first', 'reversed'],
  ])('run %s: the follower closes exactly the master\'s 1/2', async (_name, order) => {
    const { mOrder, f } = await setup();
    const total = await b.usdtTotal();
    const chunks = await masterClosesHalf(mOrder);
    if (order === 'both') await Promise.all(chunks.map(run));
    else for (const c of [...chunks].reverse()) await run(c);
    expect(await b.record('sam', f.id)).toMatchObject({ futuresOrderStatus: 50, amountInPosition: 0.06 });
    await expectReplaysCloseNothing(chunks, f.id);
    expect(await b.usdtTotal()).toBe(total);
  });
});

describe('two fan-out jobs of one master close through a faulty engine connection', () => {
  let proxy: ProxiedRedis;
  beforeAll(async () => {
    proxy = await ProxiedRedis.start();
  });
  afterAll(async () => proxy.stop());
  beforeEach(async () => {
    b = await copyBed({ ...proxy.overrides, REDIS_COMMAND_TIMEOUT_MS: '1000' });
  });
  afterEach(async () => b.ctx.cleanup());

  // the first follower close's reply lost, its command cut in half, or its reply held past the timeout;
  // a job whose step failed is retried (BullMQ), here by running both chunks again
  it.each<[string, Fault]>([
    ['a lost reply', 'drop-reply'],
    ['a cut mid-command', 'cut-mid-command'],
    ['a reply held past the command timeout', { delayReplyMs: 2500 }],
  ])('with %s on a follower close, then the jobs retried: the follower closes 1/2 once', async (_name, fault) => {
    const { mOrder, f } = await setup();
    const total = await b.usdtTotal();
    const chunks = await masterClosesHalf(mOrder);
    const hit = proxy.arm('closeFuturesPositionOnce', fault);
    await Promise.allSettled(chunks.map(run));
    await hit;
    await Promise.all(chunks.map(run));
    expect(await b.record('sam', f.id)).toMatchObject({ futuresOrderStatus: 50, amountInPosition: 0.06 });
    await expectReplaysCloseNothing(chunks, f.id);
    expect(await b.usdtTotal()).toBe(total);
  });
});
