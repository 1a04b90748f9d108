import BigNumber from 'bignumber.js';
import { parseEntry } from '../../../src/platform/market-event';
import { copyBed, type CopyBed } from './helpers';

/**
 * Mirroring per master fill (docs/copy-trading.md): partial fills of a resting master order, IOC limit follower
 * orders, partial closes as fractions, TP/SL changes copied, replays that do nothing twice.
 */
let b: CopyBed;
let m: number;
let mm: number;
beforeEach(async () => {
  b = await copyBed();
  // bids 50 at 98, asks 50 at 100.2: a master bid at 100 rests between them
  mm = await b.fundedAccount('mm', 1_000_000, 10);
  await b.order('mm', mm, true, 98, 50);
  await b.order('mm', mm, false, 100.2, 50);
  m = await b.master('max');
});
afterEach(async () => b.ctx.cleanup());

const TRADE = '/api/futures/trade';
const LOT = new BigNumber('0.0001');
/** docs/copy-trading.md: amount × margin / masterEquity, rounded down to the lot. */
const scaled = (amount: number | BigNumber, margin: number, equity: number) =>
  new BigNumber(amount).times(margin).div(equity).div(LOT).integerValue(BigNumber.ROUND_FLOOR).times(LOT).toNumber();
const toLot = (v: BigNumber) => v.div(LOT).integerValue(BigNumber.ROUND_FLOOR).times(LOT).toNumber();

type Rec = { id: number; clientOrderId: string | null; amount: number; amountInPosition: number; futuresOrderStatus: number; takeProfit: number; stopLoss: number };
const copyOrders = async (user: string): Promise<Rec[]> =>
  (await b.orders(user)).filter((o: Rec) => o.clientOrderId?.startsWith('copy:'));
const masterEquity = async (): Promise<number> => (await b.pub(`/api/copy-master/${m}/analytics`)).body.equity;

/** The trades of one order on the stream: [tradeId, amount]. */
async function tradesOf(orderId: number): Promise<[string, number][]> {
  const out: [string, number][] = [];
  for (const [id, fields] of await b.ctx.redis.xrange(b.ctx.keys.events('futures', 'BTC_USDT'), '-', '+')) {
    for (const ev of parseEntry(id, fields).events) {
      if (ev.e === 'trade' && (ev.tk === String(orderId) || ev.mk === String(orderId))) out.push([ev.id, Number(ev.q) / 1e4]);
    }
  }
  return out;
}

/** No follower holds two orders for one master fill: every copy clientOrderId is distinct. */
async function expectOneOrderPerFill(user: string) {
  const clids = (await copyOrders(user)).map((o) => o.clientOrderId);
  expect(new Set(clids).size).toBe(clids.length);
}

describe('per master fill', () => {
  it('mirrors each partial fill of a resting master order at once, scaled by that fill; a replay places nothing', async () => {
    const sam = await b.slave('sam', 5_000);
    const sub = await b.subscribe('sam', m, sam, 1_000);
    const mOrder = await b.order('max', m, true, 100, 4); // rests at 100
    await b.pump();
    expect(await copyOrders('sam')).toEqual([]); // nothing filled, nothing mirrored

    const carol = await b.fundedAccount('carol');
    await b.order('carol', carol, false, null, 1); // fills 1 of the master's 4
    await b.pump();
    const eq1 = await masterEquity();
    await b.order('carol', carol, false, null, 1.5); // 1.5 more; the master's order still rests
    await b.pump();
    const eq2 = await masterEquity();
    expect((await b.record('max', mOrder))).toMatchObject({ futuresOrderStatus: 50, filled: 2.5 });

    const fills = await tradesOf(mOrder);
    expect(fills.map(([, q]) => q)).toEqual([1, 1.5]);
    const got = await copyOrders('sam');
    expect(got).toEqual([
      expect.objectContaining({ clientOrderId: `copy:${mOrder}:${sub.id}:${fills[0][0]}`, amount: scaled(1, 1_000, eq1), futuresOrderStatus: 50 }),
      expect.objectContaining({ clientOrderId: `copy:${mOrder}:${sub.id}:${fills[1][0]}`, amount: scaled(1.5, 1_000, eq2), futuresOrderStatus: 50 }),
    ]);
    // each an IOC limit at 100 × 1.005 that filled at the ask, 100.2
    for (const o of got) expect(o).toMatchObject({ isMarket: false, price: 100.2, filled: o.amount });

    await b.replayAll();
    await b.replayAll();
    expect(await copyOrders('sam')).toEqual(got);
    await expectOneOrderPerFill('sam');
  });
});

describe('partial closes and TP/SL', () => {
  /** The master long 2 at 100.2, mirrored into sam's subscription; returns the master order and sam's position. */
  async function mirroredLong() {
    const sam = await b.slave('sam', 5_000);
    await b.subscribe('sam', m, sam, 1_000);
    const mOrder = await b.order('max', m, true, null, 2);
    await b.pump();
    const [f] = await copyOrders('sam');
    expect(f).toMatchObject({ futuresOrderStatus: 50, amountInPosition: scaled(2, 1_000, await masterEquity()) });
    return { mOrder, f };
  }

  it('a master partial close closes the same fraction of the follower position; the full close closes the rest', async () => {
    const { mOrder, f } = await mirroredLong();
    const r = await b.put('max', `${TRADE}/close`, { orderId: mOrder, isMarket: true, amount: 0.5 });
    expect(r.body).toMatchObject({ futuresOrderStatus: 50, amountInPosition: 1.5 });
    await b.pump();
    // a quarter of the master's 2: the follower closes a quarter of its position, down to the lot
    const left = new BigNumber(f.amountInPosition).minus(toLot(new BigNumber(f.amountInPosition).times(0.5).div(2))).toNumber();
    const after = await b.record('sam', f.id);
    expect(after).toMatchObject({ futuresOrderStatus: 50, amountInPosition: left });
    expect(after.realizedPnl).toBeLessThan(0); // closed at the bid, 98, below the entry 100.2

    await b.replayAll(); // the close is not applied twice
    expect((await b.record('sam', f.id)).amountInPosition).toBe(left);

    await b.put('max', `${TRADE}/close`, { orderId: mOrder, isMarket: true });
    await b.pump();
    expect(await b.record('sam', f.id)).toMatchObject({ futuresOrderStatus: 20, amountInPosition: 0 });
    await b.replayAll();
    expect((await copyOrders('sam')).map((o) => o.id)).toEqual([f.id]);
  });

  it('TP/SL set, changed or cleared later by the master are copied to the follower position', async () => {
    const { mOrder, f } = await mirroredLong();
    expect((await b.put('max', `${TRADE}/update-take-profit`, { orderId: mOrder, takeProfit: 130 })).status).toBe(200);
    expect((await b.put('max', `${TRADE}/update-stop-loss`, { orderId: mOrder, stopLoss: 90 })).status).toBe(200);
    await b.pump();
    expect(await b.record('sam', f.id)).toMatchObject({ takeProfit: 130, stopLoss: 90 });
    await b.put('max', `${TRADE}/update-take-profit`, { orderId: mOrder, takeProfit: 125 });
    await b.put('max', `${TRADE}/update-stop-loss`, { orderId: mOrder, stopLoss: null });
    await b.pump();
    expect(await b.record('sam', f.id)).toMatchObject({ takeProfit: 125, stopLoss: 0 });
    await b.replayAll(); // replays the older values in order, ending where the master is
    expect(await b.record('sam', f.id)).toMatchObject({ takeProfit: 125, stopLoss: 0 });
  });
});

/** Social links returned: copy-master.test.ts and copy-access.test.ts. */
describe('issue 9, finding 9', () => {
  it('partial fills mirrored at once, the IOC slippage guard with its skip readable, a partial close mirrored', async () => {
    const sam = await b.slave('sam', 5_000);
    const sue = await b.slave('sue', 5_000);
    await b.subscribe('sam', m, sam, 1_000);
    const tight = await b.post('sue', '/api/copy-slave/startMasterCopy', {
      copyMasterFuturesAccountId: m, copySlaveFuturesAccountId: sue, margin: 1_000, maxSlippagePercent: 0.1,
    });
    expect(tight.status).toBe(200);
    const mOrder = await b.order('max', m, true, 100, 3); // rests at 100
    const carol = await b.fundedAccount('carol');
    await b.order('carol', carol, false, null, 2); // a partial fill of the resting order
    await b.pump();
    // sam (0.5 %: 100.5) fills at 100.2; sue (0.1 %: 100.1) finds nothing and records SLIPPAGE
    const [f] = await copyOrders('sam');
    expect(f).toMatchObject({ futuresOrderStatus: 50, amountInPosition: scaled(2, 1_000, await masterEquity()) });
    const [trade] = await tradesOf(mOrder);
    expect((await b.get('sue', `/api/copy-slave/${sue}/${m}/skips`)).body).toEqual([
      { masterOrderId: mOrder, tradeId: Number(trade[0]), reason: 'SLIPPAGE', timestamp: expect.any(String) },
    ]);
    // the master closes half of its 2: sam closes half of its position
    await b.put('max', `${TRADE}/close`, { orderId: mOrder, isMarket: true, amount: 1 });
    await b.pump();
    expect((await b.record('sam', f.id)).amountInPosition).toBe(f.amountInPosition - toLot(new BigNumber(f.amountInPosition).div(2)));
  });
});
