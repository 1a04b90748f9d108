import { testContext } from '../../support/harness';

/**
 * The operation record's contract (lua/includes/operationRecord.lua, fenceOperation,
 * reopenOperation), command by command: attempts of one operation, fences that name which attempt
 * may still run, and deadlines on Redis's own clock. A deposit of 5 is the operation; the wallet
 * says whether it ran.
 */
type Ctx = Awaited<ReturnType<typeof testContext>>;
let ctx: Ctx;
beforeAll(async () => {
  ctx = await testContext();
});
afterAll(async () => ctx.cleanup());

const TTL = 60;
let n = 0;
function operation() {
  const user = `or${++n}${Math.random().toString(36).slice(2, 6)}`;
  const op = ctx.keys.operation(`record-test-${user}`);
  const wallet = ctx.keys.walletAvailable(user);
  const redisNow = async () => {
    const [s, us] = (await ctx.redis.time()).map(Number);
    return s * 1000 + Math.floor(us / 1000);
  };
  return {
    /** One attempt's command, its deadline `budgetMs` from now on Redis's clock. */
    send: async (attempt: string, budgetMs = 5000) =>
      ctx.scripts.run<unknown>(
        'deposit',
        [wallet, ctx.keys.userEvents(), op],
        ['USDT', '5', user, await redisNow(), 1000, TTL, (await redisNow()) + budgetMs, attempt],
        true,
      ),
    fence: (attempt: string) => ctx.scripts.run<unknown[]>('fenceOperation', [op], [TTL, attempt]),
    reopen: (attempt: string) => ctx.scripts.run<unknown[]>('reopenOperation', [op], [TTL, attempt]),
    credited: async () => Number((await ctx.redis.hget(wallet, 'USDT')) ?? 0),
  };
}

const FENCED = ['ERR', 'OPERATION_FENCED', ''];
const ABORTED = ['ERR', 'OPERATION_ABORTED', ''];

it('runs once, and every later attempt answers the stored reply', async () => {
  const o = operation();
  const first = await o.send('a1');
  expect(first).toEqual(['OK', '5']);
  expect(await o.send('a2')).toEqual(first);
  expect(await o.fence('a3')).toEqual(['RAN', first]);
  expect(await o.reopen('a4')).toEqual(['RAN', first]);
  expect(await o.credited()).toBe(5);
});

it('a fenced attempt never runs; a reopened retry runs once, and the old attempt stays barred', async () => {
  const o = operation();
  expect(await o.fence('a1')).toEqual(['NOT_RUN']); // a1's reply was lost before it arrived
  expect(await o.send('a1')).toEqual(FENCED); // a1's command, late
  expect(await o.send('a2')).toEqual(FENCED); // a retry must name itself first
  expect(await o.reopen('a2')).toEqual(['OPEN']);
  expect(await o.send('a1')).toEqual(FENCED);
  const ran = await o.send('a2');
  expect(ran).toEqual(['OK', '5']);
  expect(await o.send('a1')).toEqual(ran); // now the stored reply, not a second run
  expect(await o.credited()).toBe(5);
});

it('asking about an attempt another one was opened to leaves that one free to run', async () => {
  const o = operation();
  expect(await o.reopen('b')).toEqual(['OPEN']);
  expect(await o.fence('a')).toEqual(['NOT_RUN']); // a is barred already
  expect(await o.send('b')).toEqual(['OK', '5']);
  expect(await o.credited()).toBe(5);
});

it('asking about the attempt it was opened to bars it too', async () => {
  const o = operation();
  expect(await o.reopen('b')).toEqual(['OPEN']);
  expect(await o.fence('b')).toEqual(['NOT_RUN']);
  expect(await o.send('b')).toEqual(FENCED);
  expect(await o.credited()).toBe(0);
});

it('a command past its deadline on Redis clock does nothing, and a later attempt still may run', async () => {
  const o = operation();
  expect(await o.send('late', -1)).toEqual(ABORTED);
  expect(await o.credited()).toBe(0);
  expect(await o.send('next')).toEqual(['OK', '5']);
  expect(await o.credited()).toBe(5);
});
