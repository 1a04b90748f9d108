import { shardOfId } from '../../../src/domain/shard-ids';
import type { AccountTradingStats } from '../../../src/futures';
import { statsOfOrders } from '../../support/analytics-oracle';
import { copyBed, type CopyBed } from './helpers';

const plain = (s: AccountTradingStats) => ({
  ...s,
  net: s.net.toFixed(), openNet: s.openNet.toFixed(), funding: s.funding.toFixed(),
  closedDaily: Object.fromEntries([...s.closedDaily].map(([d, v]) => [d, v.toString()])),
  pairs: Object.fromEntries([...s.pairs].map(([c, p]) => [c, { trades: p.trades, net: p.net.toFixed(), volume: p.volume.toFixed() }])),
});

/**
 * Trading aggregates are kept only for the accounts copy trading reads (lua/includes/futures/accountStats.lua,
 * docs/copy-trading.md "Read models"): a master's account and a copy subscription's are tracked from
 * birth, a plain trader's trading leaves no aggregate keys; an account that traded untracked and is
 * then listed as a master (the deployment's board backfill, for a master from before the flag) gets
 * aggregates equal to the fold over all its orders, and they stay so as it trades on.
 */
describe('copy trading: aggregates of tracked accounts only', () => {
  let b: CopyBed;
  let mm: number;
  beforeAll(async () => {
    b = await copyBed();
    mm = await b.liquidity(100, 500);
  }, 120_000);
  afterAll(async () => b.ctx.cleanup());

  /**
   * The engine keeps an account's aggregates on the market's shard, in its hash there (docs/futures.md,
   * "Futures on engine shards"); the account is registered at its home, the shard its id names.
   */
  const market = () => b.ctx.futures.keyring.ofPair('BTC_USDT');
  const registry = (acct: number | string) => b.ctx.futures.keyring.ofAccount(acct);
  /** The flag where the engine reads it (the market's shard) and at the registry, which copies take it from. */
  const flag = async (acct: number | string) => {
    const [there, home] = [market().futuresAccount(acct), registry(acct).futuresAccount(acct)];
    const [a, r] = [await b.ctx.redis.hget(there, 'stats'), await b.ctx.redis.hget(home, 'stats')];
    expect(r).toBe(a);
    return a;
  };
  /** The account's aggregate keys on every shard. */
  const aggregateKeys = async (acct: number | string) => {
    let n = 0;
    for (const k of b.ctx.futures.keyring.all()) n += await b.ctx.redis.exists(k.futuresStats(acct), k.futuresDaily(acct), k.futuresDays(acct));
    return n;
  };
  /** The account's kept aggregates and the fold over all its orders. */
  async function keptAndFold(acct: number | string) {
    const orders = (await b.ctx.futures.accountReader.state(acct))?.orders ?? [];
    const [kept] = await b.ctx.futures.accountStats.read([acct]);
    return { kept: plain(kept), fold: plain(statsOfOrders(orders)), filled: orders.filter((o) => Number(o.h.filled) > 0).length };
  }
  /** Opens a long of `size` at market and closes `part` of it, then opens a short left open. */
  async function trade(user: string, acct: number, size: number, part: number) {
    const pos = await b.order(user, acct, true, null, size);
    const c = await b.put(user, '/api/futures/trade/close', { orderId: pos, isMarket: true, amount: part });
    expect(c.status).toBe(200);
    await b.order(user, acct, false, null, 1);
  }

  it('a master and a copy subscription are tracked from birth; a plain trader keeps no aggregates', async () => {
    const master = await b.master('tm1');
    const slave = await b.slave('tf1', 5_000);
    const sub = await b.subscribe('tf1', master, slave, 1_000);
    const subAcct = (await b.ctx.redis.hget(b.ctx.shards.keys(shardOfId(String(sub.id))).copySubscription(sub.id), 'acct')) as string;
    await trade('tm1', master, 4, 1);
    await b.pump();
    expect([await flag(master), await flag(subAcct)]).toEqual(['1', '1']);
    // the maker and the slave's own account are plain traders: the maker filled every order above
    expect([await flag(mm), await flag(slave)]).toEqual([null, null]);
    expect(await aggregateKeys(mm)).toBe(0);
    const m = await keptAndFold(master);
    expect(m.filled).toBeGreaterThan(1);
    expect(m.kept).toEqual(m.fold);
    const s = await keptAndFold(subAcct);
    expect(s.filled).toBeGreaterThan(0);
    expect(s.kept).toEqual(s.fold);
  });

  it('an account that traded untracked, then listed as a master, has the aggregates of all its orders', async () => {
    const master = await b.master('tm2');
    const k = b.ctx.keys;
    // a master from before the flag: its account untracked on every shard, its aggregates gone
    for (const s of b.ctx.futures.keyring.all()) {
      await b.ctx.redis.hdel(s.futuresAccount(master), 'stats');
      await b.ctx.redis.del(s.futuresStats(master), s.futuresDaily(master), s.futuresDays(master));
    }
    // and a plain trader's aggregates left by a deployment that kept them for every account: on the
    // market's shard, and at its registry (its home, the shard its random id names with several shards)
    for (const s of new Set([market(), registry(mm)])) await b.ctx.redis.hset(s.futuresStats(mm), 'net', '5', 'trades', '1');
    expect(await aggregateKeys(mm)).toBeGreaterThan(0);
    await trade('tm2', master, 3, 2);
    await trade('tm2', master, 2, 2);
    expect(await aggregateKeys(master)).toBe(0);

    // the deployment's backfill lists every master (the step that tracks and rebuilds), then the rest
    await b.ctx.redis.del(k.copyBoardBackfill(), k.futuresStatsBackfill());
    await b.ctx.copy.board.backfill();
    expect(await flag(master)).toBe('1');
    expect(await aggregateKeys(mm)).toBe(0);
    const listed = await keptAndFold(master);
    expect(listed.filled).toBeGreaterThan(3);
    expect(listed.kept).toEqual(listed.fold);
    const [pnl] = await b.ctx.futures.accountStats.scores('pnl', [String(master)]);
    expect(pnl).toBeCloseTo(-Number(listed.kept.net) / 1e8, 8);

    await trade('tm2', master, 2, 1);
    const later = await keptAndFold(master);
    expect(later.filled).toBeGreaterThan(listed.filled);
    expect(later.kept).toEqual(later.fold);
  });
});
