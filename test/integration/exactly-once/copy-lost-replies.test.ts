import { CopyStore } from '../../../src/copy/copy-store';
import type { Fault } from '../../support/fault-proxy';
import { ProxiedRedis } from '../../support/proxied-redis';
import { copyBed, type CopyBed } from '../copy/helpers';

/**
 * Exactly once (docs/api-contract.md#exactly-once), for copy trading: startMasterCopy and finishMasterCopy (closeOrders true
 * and false) go through a proxy that loses a reply, cuts a command in half or holds a reply past
 * the command timeout, at each engine step they take. Afterwards there is one subscription, the
 * margin moved in once and back once, the management fee and the profit share were charged once
 * (by their formulas over the subscription's own record), and the USDT total over wallets, futures
 * accounts, fees, insurance and the pnl pool is what it was.
 */
const COMMAND_TIMEOUT_MS = 1000;
const HELD: Fault = { delayReplyMs: 2500 };
const YEAR_S = 31_536_000n;
const PPM = 1_000_000n;
const FEE_PPM = 100_000n; // commissionRate 10 % a year
const SHARE_PPM = 200_000n; // slaveIncomePercentage 20 %
const FUND = 1_000;
const MARGIN = 500;

let proxy: ProxiedRedis;
let b: CopyBed;
let m: number;
let store: CopyStore;
/** One USDT in minor units. */
let unit: bigint;

beforeAll(async () => {
  proxy = await ProxiedRedis.start();
});
afterAll(async () => proxy.stop());
beforeEach(async () => {
  b = await copyBed({ ...proxy.overrides, REDIS_COMMAND_TIMEOUT_MS: String(COMMAND_TIMEOUT_MS) });
  await b.liquidity(100);
  m = await b.master('max', { commissionRate: 10, slaveIncomePercentage: 20 });
  store = new CopyStore(b.ctx.redis, b.ctx.keys, b.ctx.shards);
  unit = 10n ** BigInt((await b.ctx.markets.store.getCurrency('USDT'))?.decimals ?? 0);
});
afterEach(async () => b.ctx.cleanup());

const S = '/api/copy-slave';
const finishBody = (slave: number, closeOrders: boolean) => ({ copyMasterFuturesAccountId: m, copySlaveFuturesAccountId: slave, closeOrders });

/** Sends `send` with `fault` armed on the next command carrying `marker`; waits until the fault hit. */
async function faulted<T>(marker: string, fault: Fault, send: () => PromiseLike<T>): Promise<T> {
  const hit = proxy.arm(marker, fault);
  const out = await send();
  await hit;
  return out;
}

const minor = async (key: string, field: string) => BigInt((await b.ctx.redis.hget(key, field)) ?? '0');
const accountCash = async (id: number | string) => ({
  balance: await minor(b.ctx.keys.futuresAccount(id), 'balance'),
  locked: await minor(b.ctx.keys.futuresAccount(id), 'locked'),
});
const walletUsdt = (user: string) => minor(b.ctx.keys.walletAvailable(user), 'USDT');

async function onlySubscription(slave: number) {
  const subs = await store.slaveSubscriptions(String(slave));
  expect(subs).toHaveLength(1);
  return { sub: subs[0], ledger: await store.ledger(subs[0].id) };
}

describe('copy start through a faulty engine connection', () => {
  // a lost or late reply is asked after and answered as done; a cut command ran nothing: 503
  it.each<[string, Fault, number]>([
    ['a lost reply', 'drop-reply', 200],
    ['a cut mid-command', 'cut-mid-command', 503],
    ['a reply held past the command timeout', HELD, 200],
  ])('after %s: one subscription, the margin moved once', async (_name, fault, status) => {
    const slave = await b.slave('sam', FUND);
    const total = await b.usdtTotal();
    const r = await faulted('startCopyOnce', fault, () => b.start('sam', m, slave, MARGIN));
    expect(r.status).toBe(status);
    if (r.status !== 200) {
      // nothing was done (the copy account made before it stays, empty), so the client retries
      expect(r.body.error.code).toBe('ENGINE_UNAVAILABLE');
      expect(await store.slaveSubscriptions(String(slave))).toEqual([]);
      expect((await b.start('sam', m, slave, MARGIN)).status).toBe(200);
    }
    const { sub, ledger } = await onlySubscription(slave);
    expect(sub.state).toBe('Active');
    const margin = BigInt(sub.margin);
    expect(margin).toBe(BigInt(MARGIN) * unit);
    expect(BigInt(ledger.netIn)).toBe(margin);
    expect(await accountCash(sub.acct)).toEqual({ balance: margin, locked: 0n });
    expect((await accountCash(slave)).balance).toBe(BigInt(FUND) * unit - margin);
    // a second start is refused, and every copy account but the subscription's is empty
    expect((await b.start('sam', m, slave, MARGIN)).status).toBe(409);
    const accounts = (await b.get('sam', '/api/futures/accounts')).body as { id: number; name: string; balance: number }[];
    for (const a of accounts.filter((x) => x.name.startsWith('copy #') && String(x.id) !== sub.acct)) expect(a.balance).toBe(0);
    expect(await b.usdtTotal()).toBe(total);
  });
});

describe('copy finish through a faulty engine connection', () => {
  /** The follower mirrors a master buy of 10 at market; then the bid rises to 120 (a profit, unrealized). */
  async function followerInProfit() {
    const slave = await b.slave('sam', FUND);
    await b.subscribe('sam', m, slave, MARGIN);
    await b.order('max', m, true, null, 10);
    await b.pump();
    const ann = await b.fundedAccount('ann', 1_000_000, 10);
    await b.order('ann', ann, true, 120, 100);
    const { sub } = await onlySubscription(slave);
    // the fee accrues by whole seconds: let two pass, so it is not zero
    const wait = Number(sub.opened) + 2_000 - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    return slave;
  }

  // [closeOrders, the step faulted, the fault, the answer, the answer to the client's retry (rows
  // are of one length: jest takes a parameter past a row's end for a done callback)]: a cut
  // first step ran nothing (the retry finishes); a cut last step leaves the finish Finishing (the
  // retry is 409, the worker's resume completes it)
  it.each<[boolean, string, Fault, number, number | null]>([
    [true, 'beginCopyFinishOnce', 'drop-reply', 200, null],
    [true, 'beginCopyFinishOnce', 'cut-mid-command', 503, 200],
    [true, 'closeFuturesPositionOnce', 'drop-reply', 200, null],
    [true, 'completeCopyFinishOnce', HELD, 200, null],
    [true, 'completeCopyFinishOnce', 'cut-mid-command', 503, 409],
    [false, 'beginCopyFinishOnce', 'drop-reply', 200, null],
    [false, 'beginCopyFinishOnce', HELD, 200, null],
    [false, 'completeCopyFinishOnce', 'drop-reply', 200, null],
    [false, 'completeCopyFinishOnce', 'cut-mid-command', 503, 409],
  ])('closeOrders %s, fault on %s (%j): finished once, fee and share charged once, money conserved', async (closeOrders, marker, fault, status, retry) => {
    const slave = await followerInProfit();
    const total = await b.usdtTotal();
    const masterWallet = await walletUsdt('max');
    const slaveBefore = await accountCash(slave);

    const r = await faulted(marker, fault, () => b.post('sam', `${S}/finishMasterCopy`, finishBody(slave, closeOrders)));
    expect(r.status).toBe(status);
    if (retry !== null) {
      expect(r.body.error.code).toBe('ENGINE_UNAVAILABLE');
      expect((await b.post('sam', `${S}/finishMasterCopy`, finishBody(slave, closeOrders))).status).toBe(retry);
      await b.ctx.copy.settlement.resume();
    }
    await b.pump();

    const { sub, ledger } = await onlySubscription(slave);
    expect(sub.state).toBe('Finished');
    expect((await store.unfinished()).subscriptions).toEqual([]);
    // fee: margin x rate over the whole seconds from start to finish, once
    const secs = BigInt(Math.floor((Number(sub.closed) - Number(sub.opened)) / 1000));
    const fee = (((BigInt(sub.margin) * FEE_PPM) / PPM) * secs) / YEAR_S;
    expect(fee).toBeGreaterThan(0n);
    expect(BigInt(ledger.commission)).toBe(fee);
    // share: of the realized profit's high-water mark, once; only a close realizes the profit
    const hwm = BigInt(ledger.hwm);
    if (closeOrders) expect(hwm).toBeGreaterThan(0n);
    else expect(hwm).toBe(0n);
    expect(BigInt(ledger.shared)).toBe((hwm * SHARE_PPM) / PPM);
    expect([ledger.owedFee, ledger.owedShare]).toEqual(['0', '0']);
    // the master's owner got exactly what the ledger booked
    expect((await walletUsdt('max')) - masterWallet).toBe(BigInt(ledger.commission) + BigInt(ledger.shared));
    // the free balance went back once: what left the ledger's netIn is what the slave account gained
    const copy = await accountCash(sub.acct);
    expect(copy.balance).toBe(0n);
    expect((await accountCash(slave)).balance - slaveBefore.balance).toBe(BigInt(sub.margin) - BigInt(ledger.netIn));
    // closeOrders false leaves the mirrored position open, its margin in the copy account
    if (closeOrders) expect(copy.locked).toBe(0n);
    else expect(copy.locked).toBeGreaterThan(0n);
    expect(await b.usdtTotal()).toBe(total);
  });
});
