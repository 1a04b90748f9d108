import fc from 'fast-check';
import request from 'supertest';
import { bearer } from '../support/harness';
import { AppError } from '../../src/domain/errors';
import { newTransfer } from '../../src/wallet/transfer-ledger';
import { clusterRequested } from '../support/test-cluster';
import { durableRedis, type ShardRedis, shardWorld, userWithHome } from '../integration/shards/shard-fixture';

/**
 * Random deposits, orders on markets of all three shards (a sale on one shard pays for a buy on
 * another), cancels, copy trading by users of every home (masters funded from home, followers'
 * accounts funded from home and started, masters closed), transfers whose relay dies after the
 * debit, duplicate and concurrent deliveries, worker drains and idle sweeps, on ENGINE_SHARDS=3. After every step the reconciler's
 * invariant holds per currency with nothing negative; at the end, once the outboxes are drained,
 * nothing is in transit and every user's merged balances add up to what the reconciler counts.
 */

const MARKETS = ['BTC_USDT', 'ETH_USDT', 'SOL_USDT']; // shards 0, 1, 2
const BASES = ['BTC', 'ETH', 'SOL'];

type Step =
  | { kind: 'deposit'; user: number; cur: number; amount: number }
  | { kind: 'place'; user: number; market: number; side: 'buy' | 'sell'; price: number; amount: number }
  | { kind: 'cancelAll'; user: number; market: number }
  | { kind: 'crashTransfer'; user: number; cur: number; fromHome: boolean; from: number; offset: number; amount: number }
  | { kind: 'deliverTwice' }
  | { kind: 'drain' }
  | { kind: 'sweepIdle'; shard: number }
  | { kind: 'master'; user: number; amount: number }
  | { kind: 'follow'; user: number; pick: number; amount: number }
  | { kind: 'closeMaster'; pick: number };

const user = fc.integer({ min: 0, max: 3 });
const shard = fc.integer({ min: 0, max: 2 });
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('deposit' as const), user, cur: fc.integer({ min: 0, max: 3 }), amount: fc.integer({ min: 1, max: 5000 }) }) },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('place' as const), user, market: shard, side: fc.constantFrom('buy' as const, 'sell' as const),
      price: fc.integer({ min: 95, max: 105 }), amount: fc.integer({ min: 1, max: 20 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancelAll' as const), user, market: shard }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('crashTransfer' as const), user, cur: fc.integer({ min: 0, max: 3 }), fromHome: fc.boolean(), from: shard,
      offset: fc.integer({ min: 1, max: 2 }), amount: fc.integer({ min: 1, max: 3000 }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'deliverTwice' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'drain' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('sweepIdle' as const), shard }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('master' as const), user, amount: fc.integer({ min: 10, max: 300 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('follow' as const), user, pick: fc.nat(), amount: fc.integer({ min: 10, max: 300 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('closeMaster' as const), pick: fc.nat() }) },
);

// on the cluster run (every step's reconcile SCANs three masters with appendfsync always) fewer sequences
const RUNS = clusterRequested() ? 10 : 30;

let server: ShardRedis;
beforeAll(async () => {
  server = await durableRedis();
});
afterAll(async () => server.stop());

const runs: number[] = [];
const copyRuns: number[] = [];
afterAll(() => {
  // the sequences did send transfers that only a drain or a duplicate delivery finished, and did copy
  expect(runs.some((n) => n > 0)).toBe(true);
  expect(copyRuns.some((n) => n > 0)).toBe(true);
});

it('keeps every currency reconciled through random trading, copy trading, transfers, relay crashes and duplicate deliveries on three shards', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 5, maxLength: 25 }), async (steps) => {
      // headroom makes top-ups leave escrow behind; the sweep steps take any escrow with nothing reserved
      const w = await shardWorld(server, 3, { ESCROW_HEADROOM_PERCENT: '25' });
      try {
        const { ctx } = w;
        await ctx.markets.service.createCurrency({ code: 'SOL', name: 'Solana', decimals: 8 });
        const sol = await ctx.markets.service.createPair({
          kind: 'spot', baseCurrencyCode: 'SOL', quoteCurrencyCode: 'USDT', digitsPrice: 2, digitsAmount: 2,
          minBaseAmount: 0.01, minQuoteAmount: 1, makerFee: 0.001, takerFee: 0.002, engineShard: 2,
        });
        expect(sol.pair.engineShard).toBe(2);
        const users = [await userWithHome(ctx, 0, 'p0-'), await userWithHome(ctx, 1, 'p1-'), await userWithHome(ctx, 2, 'p2-'), await userWithHome(ctx, 2, 'q2-')];
        // every user starts with some USDT at home, so copy trading has capital to move
        for (const u of users) await ctx.wallets.deposit(u, 'USDT', 1000);
        const relay = ctx.funds.relay as NonNullable<typeof ctx.funds.relay>;
        const escrow = ctx.funds.escrow as NonNullable<typeof ctx.funds.escrow>;
        const expectedCodes = new Set(['ENGINE_SHARD_UNKNOWN', 'INSUFFICIENT_BALANCE', 'BELOW_MIN_QUOTE_AMOUNT', 'BELOW_MIN_BASE_AMOUNT']);
        const tolerate = (err: unknown) => {
          if (!(err instanceof AppError) || !expectedCodes.has(err.code)) throw err;
        };
        let crashed = 0;
        let copies = 0;
        const masters: { id: number; owner: string }[] = [];
        // copy trading through HTTP, as clients drive it: a refusal (4xx) is part of the game, a 5xx is not
        const post = async (who: string, path: string, body: object) => {
          const r = await request(w.app).post(path).set('Authorization', bearer(who)).send(body);
          expect([path, r.status < 500]).toEqual([path, true]);
          return r;
        };
        // every sequence opens with a master and a follower of it (homes 0 and 1), so even the cluster run's few sequences copy
        const opening: Step[] = [{ kind: 'master', user: 0, amount: 200 }, { kind: 'follow', user: 1, pick: 0, amount: 100 }];
        for (const s of [...opening, ...steps]) {
          switch (s.kind) {
            case 'deposit':
              await ctx.wallets.deposit(users[s.user], [...BASES, 'USDT'][s.cur], s.amount);
              break;
            case 'place':
              await ctx.spot.orders
                .place(users[s.user], { currencyPairCode: MARKETS[s.market], side: s.side, type: 'limit', price: s.price, amount: s.amount / 10 })
                .catch(tolerate);
              break;
            case 'cancelAll':
              await ctx.spot.orders.cancelAll(users[s.user], MARKETS[s.market]);
              break;
            case 'crashTransfer': {
              // step 1 only: the process that sent it died before the relay steps
              const from = s.fromHome ? await ctx.funds.homes.of(users[s.user]) : s.from;
              const t = newTransfer(users[s.user], [...BASES, 'USDT'][s.cur], from, (from + s.offset) % 3);
              if ((await ctx.funds.ledger.send(t, 'exact', String(s.amount * 1e8), '1').catch(tolerate)) !== undefined) crashed++;
              break;
            }
            case 'deliverTwice':
              for (let sh = 0; sh < 3; sh++) {
                const pending = await ctx.funds.ledger.outbox(sh);
                await Promise.all(pending.flatMap((t) => [relay.deliver(t), relay.deliver(t)]));
              }
              break;
            case 'drain':
              for (let sh = 0; sh < 3; sh++) await relay.drain(sh, 0);
              break;
            case 'sweepIdle':
              await escrow.sweepIdle(s.shard, undefined, 0);
              break;
            case 'master': {
              const r = await post(users[s.user], '/api/copy-master', {
                name: 'M', strategyName: 'S', leverage: 10, currencyCode: 'USDT', slaveIncomePercentage: 10, commissionRate: 0, amount: s.amount,
              });
              if (r.status === 200) masters.push({ id: r.body.id, owner: users[s.user] });
              break;
            }
            case 'follow': {
              if (!masters.length) break;
              const m = masters[s.pick % masters.length];
              const slave = await post(users[s.user], '/api/copy-slave', { name: 'F', leverage: 10, currencyCode: 'USDT' });
              if (slave.status !== 200) break;
              const funded = await post(users[s.user], '/api/wallet/transfer', {
                fromFuturesAccountId: null, toFuturesAccountId: slave.body.id, currencyCode: 'USDT', amount: s.amount,
              });
              if (funded.status === 200) {
                const started = await post(users[s.user], '/api/copy-slave/startMasterCopy', {
                  copyMasterFuturesAccountId: m.id, copySlaveFuturesAccountId: slave.body.id, margin: s.amount / 2,
                });
                if (started.status === 200) copies++;
              }
              break;
            }
            case 'closeMaster': {
              if (!masters.length) break;
              const m = masters[s.pick % masters.length];
              const r = await request(w.app).delete(`/api/copy-master/${m.id}`).set('Authorization', bearer(m.owner));
              expect(r.status < 500).toBe(true);
              break;
            }
          }
          for (const row of await ctx.funds.reconciler.check()) {
            expect([JSON.stringify(s), row.currencyCode, row.holds, row.negative]).toEqual([JSON.stringify(s), row.currencyCode, true, []]);
          }
        }
        for (let sh = 0; sh < 3; sh++) await relay.drain(sh, 0);
        runs.push(crashed);
        copyRuns.push(copies);
        const rows = await ctx.funds.reconciler.check();
        for (const row of rows) {
          expect([row.currencyCode, row.holds, row.terms.inTransit]).toEqual([row.currencyCode, true, 0]);
          // what the users hold, read merged over the shards, is the reconciler's wallets
          let held = 0;
          for (const u of users) {
            const b = (await ctx.wallets.balances(u)).find((x) => x.currencyCode === row.currencyCode);
            held += Math.round(((b?.available ?? 0) + (b?.reserved ?? 0)) * 1e8);
          }
          const t = row.terms;
          expect([row.currencyCode, held]).toEqual([row.currencyCode, Math.round((t.home + t.escrow + t.reserved) * 1e8)]);
        }
      } finally {
        await w.ctx.cleanup();
      }
    }),
    { numRuns: RUNS },
  );
}, RUNS * 10_000);
