import { copyBed, type CopyBed } from './helpers';

const M = '/api/copy-master';
type Dto = { id: number; totalPnl: number; totalPnlPercent: number; subscribersCount: number; tradingDays: number;
  maxDrawdownPercent: number; createdAt: string; rank: number; globalRank: number; status: string };

/** The leaderboard's orders over the masters' own profiles (no open positions: realized = total). */
const ORDERS: Record<string, (a: Dto, b: Dto) => number> = {
  roi: (a, b) => b.totalPnlPercent - a.totalPnlPercent,
  pnl: (a, b) => b.totalPnl - a.totalPnl,
  followers: (a, b) => b.subscribersCount - a.subscribersCount,
  tradingDays: (a, b) => b.tradingDays - a.tradingDays,
  drawdown: (a, b) => a.maxDrawdownPercent - b.maxDrawdownPercent,
  newest: (a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt),
};

/**
 * The leaderboard kept as sorted sets (CopyBoard): masters with different results, each order paged
 * two at a time equals the masters' profiles sorted by that order (ties by id); filters; a closed
 * master leaves the board and keeps its global rank.
 */
describe('copy leaderboard from the rankings', () => {
  let b: CopyBed;
  const ids: number[] = [];
  beforeAll(async () => {
    b = await copyBed();
    await b.liquidity(100, 500);
    // amounts and trade sizes apart so roi and pnl order differently; the last one never trades
    const plan: [number, number][] = [[10_000, 3], [2_000, 1], [50_000, 8], [10_000, 0], [5_000, 2]];
    for (const [i, [amount, size]] of plan.entries()) {
      const user = `bm${i}`;
      const id = await b.master(user, { amount, strategyName: `S${i}` });
      ids.push(id);
      if (size > 0) {
        const pos = await b.order(user, id, true, null, size); // buys at 101
        const c = await b.put(user, '/api/futures/trade/close', { orderId: pos, isMarket: true }); // sells at 99
        expect(c.status).toBe(200);
      }
    }
    const slave = await b.slave('fan', 5_000);
    await b.subscribe('fan', ids[1], slave, 500);
  }, 120_000);
  afterAll(async () => b.ctx.cleanup());

  async function profiles(): Promise<Dto[]> {
    return Promise.all(ids.map(async (id) => (await b.pub(`${M}/${id}/analytics`)).body as Dto));
  }

  async function walk(query: string): Promise<{ ids: number[]; totals: number[] }> {
    const out: number[] = [];
    const totals: number[] = [];
    for (let page = 1; page <= 4; page++) {
      const r = await b.pub(`${M}/public-masters?pageSize=2&page=${page}&${query}`);
      expect(r.status).toBe(200);
      totals.push(r.body.totalCount);
      out.push(...r.body.items.map((m: Dto) => m.id));
    }
    return { ids: out, totals };
  }

  it.each(Object.keys(ORDERS))('pages %s in the order of the profiles', async (preset) => {
    const all = await profiles();
    const want = [...all].sort((x, y) => ORDERS[preset](x, y) || x.id - y.id).map((m) => m.id);
    const got = await walk(`sortPreset=${preset}`);
    expect(got.ids).toEqual(want);
    expect(new Set(got.totals)).toEqual(new Set([ids.length]));
  });

  it('ranks match the places in the roi and pnl orders; filters select by range', async () => {
    const all = await profiles();
    const byRoi = [...all].sort((x, y) => ORDERS.roi(x, y) || x.id - y.id);
    const byPnl = [...all].sort((x, y) => ORDERS.pnl(x, y) || x.id - y.id);
    for (const m of all) {
      expect(m.rank).toBe(byRoi.findIndex((x) => x.id === m.id) + 1);
      expect(m.globalRank).toBe(byPnl.findIndex((x) => x.id === m.id) + 1);
    }
    const losers = all.filter((m) => m.totalPnlPercent < 0);
    const cut = Math.min(...losers.map((m) => m.totalPnlPercent));
    const mid = (losers.map((m) => m.totalPnlPercent).sort((x, y) => x - y)[1] + cut) / 2;
    const inRange = (lo: number, hi: number) =>
      all.filter((m) => m.totalPnlPercent >= lo && m.totalPnlPercent <= hi).sort((x, y) => ORDERS.pnl(x, y) || x.id - y.id);
    let r = await walk(`sortPreset=pnl&roiFrom=${mid}&roiTo=-0.0001`);
    expect(r.ids).toEqual(inRange(mid, -0.0001).map((m) => m.id));
    expect(r.ids.length).toBeGreaterThan(1);
    r = await walk('followersFrom=1&sortPreset=newest');
    expect(r.ids).toEqual([ids[1]]);
    r = await walk(`followersTo=0&roiFrom=${mid}`);
    expect(r.ids).toEqual(inRange(mid, Infinity).filter((m) => m.id !== ids[1]).sort((x, y) => ORDERS.roi(x, y) || x.id - y.id).map((m) => m.id));
  });

  it('a closed master leaves the board and keeps its global rank', async () => {
    const before = await profiles();
    const closing = ids[3];
    expect((await b.del('bm3', `${M}/${closing}`)).status).toBe(200);
    const got = await walk('sortPreset=roi');
    expect(got.ids).not.toContain(closing);
    expect(got.ids.length).toBe(ids.length - 1);
    const after = (await b.pub(`${M}/${closing}/analytics`)).body as Dto;
    expect(after.status).toBe('Closed');
    expect(after.rank).toBe(0);
    expect(after.globalRank).toBe(before.find((m) => m.id === closing)?.globalRank);
  });
});
