/**
 * npm run bench:private — the private user stream under load (issue 25).
 *
 * One ws gateway (a process of its own) with BENCH_USERS private connections (/ws/user, each
 * signed in as its own user and subscribed to orders, fills and balances) and BENCH_MD_CLIENTS
 * market-data connections on the same market's book, in client processes of their own, while
 * this process has those users place BENCH_RATE spot orders a second on BTC_USDT for
 * BENCH_SECONDS (limit orders that rest near the mid, a fifth crossing, cancels keeping the book
 * bounded), each through the service's order path (group commit, the engine's Lua).
 *
 * Latency is from the engine command's timestamp (`ts` of the frame: taken just before the
 * script commits, so it slightly over-counts) to the frame's receipt, for every private update
 * frame and every book update of the market-data socket in the same run. Every private frame's
 * `seq` is checked (a gap or repeat is a lost or doubled frame) and every order id an orders or
 * fills frame names must be one the connection's own user placed (else it was misdelivered).
 *
 * Env: BENCH_USERS (1000), BENCH_RATE (1000 orders a second), BENCH_SECONDS (30),
 * BENCH_MD_CLIENTS (10), BENCH_CLIENT_PROCS (2), BENCH_MAX_SECONDS (300), REDIS_URL (else a
 * private redis-server), BENCH_GATEWAY_PROFILE (a file for the gateway's CPU profile).
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import jwt from 'jsonwebtoken';
import { createLogger } from '../../src/platform/config/logger';
import { createContext } from '../../src/transport/context';
import { seedMarkets } from '../../src/markets/market-seeder';
import { startWsRole } from '../../src/transport/ws/ws-role';
import { advanceWhile, startProgress } from '../lib/progress';
import { next, reply, runBench, spawnRole, type Msg } from './lib/child-ipc';
import { BENCH_SECRET, gatewayBenchConfig, paced } from './lib/paced';
import { envInt, exitAfter } from './lib/deadline';
import { RawWsClient } from './lib/raw-ws-client';
import { deleteByPrefix, startBenchRedis } from './lib/redis-server';
import { machineInfo, printTable, redisServerVersion, writeResults } from './lib/report';
import { summarize } from './lib/stats';

const USERS = envInt('BENCH_USERS', 1000);
const RATE = envInt('BENCH_RATE', 1000);
const SECONDS = envInt('BENCH_SECONDS', 30);
const MD_CLIENTS = envInt('BENCH_MD_CLIENTS', 10);
const CLIENT_PROCS = envInt('BENCH_CLIENT_PROCS', 2);
const MAX_SECONDS = envInt('BENCH_MAX_SECONDS', 300);
const PAIR = 'BTC_USDT';
const CHANNELS = ['orders', 'fills', 'balances'];
/** A file to write the gateway's CPU profile to (BENCH_GATEWAY_PROFILE): where its time goes. */
const PROFILE = process.env.BENCH_GATEWAY_PROFILE;

const benchConfig = gatewayBenchConfig;

const spawnSelf = (role: string, env: NodeJS.ProcessEnv) => spawnRole(__filename, role, env);

// ---------------------------------------------------------------- gateway child

async function gatewayChild(): Promise<void> {
  const ctx = await createContext(
    benchConfig(process.env.BENCH_REDIS_URL as string, process.env.BENCH_PREFIX as string),
    createLogger('silent'),
  );
  const ws = await startWsRole(ctx, { port: 0 });
  const profile = PROFILE ? await startCpuProfile() : undefined;
  process.on('message', (m: Msg) => {
    if (m.cmd !== 'stop') return;
    const rssMb = Math.round(process.memoryUsage().rss / 2 ** 20);
    void (profile ? profile(PROFILE as string) : Promise.resolve()).then(() => reply({ cmd: 'stopped', rssMb }));
  });
  reply({ cmd: 'ready', port: ws.port });
}

/** Starts V8's CPU profiler in this process; the function returned writes the profile (a .cpuprofile for Chrome's DevTools) to a file. */
async function startCpuProfile(): Promise<(file: string) => Promise<void>> {
  const session = new Session();
  session.connect();
  const post = (method: string) =>
    new Promise<unknown>((ok, fail) => session.post(method, (err, res) => (err ? fail(err) : ok(res))));
  await post('Profiler.enable');
  await post('Profiler.start');
  return async (file) => {
    const { profile } = (await post('Profiler.stop')) as { profile: unknown };
    writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  };
}

// ---------------------------------------------------------------- clients child

/** One private connection's bookkeeping: its seq, what it was sent, what it saw. */
interface PrivateConn {
  user: string;
  client: RawWsClient;
  seq: number;
  gaps: number;
  snapshots: number;
  updates: number;
  orderIds: Set<number>;
}

async function clientsChild(): Promise<void> {
  const conns: PrivateConn[] = [];
  const md: RawWsClient[] = [];
  let privateLatency: number[] = [];
  let mdLatency: number[] = [];
  let measuring = false;
  process.on('message', async (m: Msg) => {
    if (m.cmd === 'connect') {
      const port = m.port as number;
      const users = m.users as { user: string; token: string }[];
      for (let i = 0; i < users.length; i += 100) {
        await Promise.all(
          users.slice(i, i + 100).map(
            ({ user, token }) =>
              new Promise<void>((resolve) => {
                const c: PrivateConn = { user, client: undefined as unknown as RawWsClient, seq: 0, gaps: 0, snapshots: 0, updates: 0, orderIds: new Set() };
                const opening = [JSON.stringify({ op: 'auth', token }), ...CHANNELS.map((channel) => JSON.stringify({ op: 'subscribe', channel }))];
                c.client = new RawWsClient(port, '/ws/user', opening, (payload, now) => {
                  const f = JSON.parse(payload.toString('utf8')) as { seq: number; type?: string; channel?: string; ts?: number; data?: Record<string, unknown> };
                  if (f.seq !== c.seq + 1) c.gaps++;
                  c.seq = f.seq;
                  if (f.type === 'snapshot') c.snapshots++;
                  if (f.type !== 'update') return;
                  c.updates++;
                  if (f.channel === 'orders') c.orderIds.add(f.data?.id as number);
                  if (f.channel === 'fills') c.orderIds.add(f.data?.orderId as number);
                  if (measuring) privateLatency.push(now - (f.ts as number));
                }, resolve);
                conns.push(c);
              }),
          ),
        );
      }
      const subscribe = JSON.stringify({ op: 'subscribe', channel: 'orderbook', market: PAIR, kind: 'spot' });
      for (let i = 0; i < (m.mdClients as number); i++) {
        await new Promise<void>((resolve) =>
          md.push(new RawWsClient(port, '/ws', [subscribe], (payload, now) => {
            if (!measuring) return;
            const at = payload.indexOf('"ts":');
            if (at >= 0) mdLatency.push(now - parseInt(payload.toString('latin1', at + 5, at + 25), 10));
          }, resolve)),
        );
      }
      // every private connection has its three snapshots before the clock starts
      const deadline = Date.now() + 60_000;
      while (conns.some((c) => c.snapshots < CHANNELS.length && !c.client.closed) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
      }
      reply({ cmd: 'connected', open: conns.filter((c) => !c.client.closed && c.snapshots === CHANNELS.length).length });
    }
    if (m.cmd === 'start') {
      privateLatency = [];
      mdLatency = [];
      measuring = true;
    }
    if (m.cmd === 'stop') {
      // the last frames of the last orders
      await new Promise((r) => setTimeout(r, 1500));
      measuring = false;
      reply({
        cmd: 'stats',
        privateLatency: privateLatency.map((x) => Math.round(x * 10) / 10),
        mdLatency: mdLatency.map((x) => Math.round(x * 10) / 10),
        updates: conns.reduce((s, c) => s + c.updates, 0),
        gaps: conns.reduce((s, c) => s + c.gaps, 0),
        dropped: conns.filter((c) => c.client.closed).length + md.filter((c) => c.closed).length,
        seen: Object.fromEntries(conns.map((c) => [c.user, [...c.orderIds]])),
      });
      for (const c of conns) c.client.close();
      for (const c of md) c.close();
    }
  });
  reply({ cmd: 'ready' });
}

// ---------------------------------------------------------------- driver (this process)

async function main(): Promise<void> {
  exitAfter(MAX_SECONDS, 'bench:private');
  const redis = await startBenchRedis();
  const prefix = `bpv${randomBytes(3).toString('hex')}`;
  const config = benchConfig(redis.url, prefix);
  const ctx = await createContext(config, createLogger('silent'));
  await seedMarkets(config.marketsFile, ctx.markets.service, ctx.log);
  const users = Array.from({ length: USERS }, (_, i) => `u${i}`);
  for (const u of users) {
    await ctx.wallets.deposit(u, 'USDT', 10_000_000);
    await ctx.wallets.deposit(u, 'BTC', 1_000);
  }
  const iat = Math.floor(Date.now() / 1000);
  const tokens = users.map((user) => ({ user, token: jwt.sign({ sub: user, iat, exp: iat + 3600 }, BENCH_SECRET, { algorithm: 'HS256' }) }));
  const env = { ...process.env, BENCH_REDIS_URL: redis.url, BENCH_PREFIX: prefix };
  const gateway = spawnSelf('gateway', env);
  const clients = Array.from({ length: CLIENT_PROCS }, () => spawnSelf('clients', env));
  await Promise.all(clients.map((c) => next(c, 'ready')));
  const { port } = await next(gateway, 'ready');
  clients.forEach((c, i) =>
    c.send({
      cmd: 'connect', port,
      users: tokens.filter((_, j) => j % CLIENT_PROCS === i),
      mdClients: Math.floor(MD_CLIENTS / CLIENT_PROCS) + (i < MD_CLIENTS % CLIENT_PROCS ? 1 : 0),
    }),
  );
  const open = (await Promise.all(clients.map((c) => next(c, 'connected')))).reduce((s, m) => s + (m.open as number), 0);
  if (open !== USERS) throw new Error(`only ${open} of ${USERS} private connections got their snapshots`);

  console.log(`bench:private — ${USERS} signed-in users, ${MD_CLIENTS} market-data clients, ${RATE} orders/s on ${PAIR} for ${SECONDS} s`);
  const progress = startProgress('bench:private', SECONDS, { unit: 's of load' });
  for (const c of clients) c.send({ cmd: 'start' });
  const owner = new Map<number, string>();
  const drive = async () => {
    const open: { user: string; id: string }[] = [];
    let failed = 0;
    const pending: Promise<unknown>[] = [];
    const run = await paced(RATE, SECONDS, (i, rand) => {
      const user = users[i % USERS];
      if (open.length > 2000) {
        const [o] = open.splice(Math.floor(rand() * open.length), 1);
        pending.push(ctx.spot.orders.cancel(o.user, o.id).catch(() => undefined));
        return;
      }
      const side = rand() < 0.5 ? 'buy' : 'sell';
      // mostly resting within 1 % of 50,000, a fifth crossing the spread
      const offset = (rand() * 0.01 + (rand() < 0.2 ? -0.004 : 0.0005)) * 50_000;
      const price = Math.round((side === 'buy' ? 50_000 - offset : 50_000 + offset) * 100) / 100;
      const amount = Math.round((0.001 + rand() * 0.01) * 1e6) / 1e6;
      pending.push(
        ctx.spot.orders
          .place(user, { currencyPairCode: PAIR, side, type: 'limit', price, amount })
          .then(({ order }) => {
            owner.set(order.id, user);
            if (order.status === 'open' || order.status === 'partiallyFilled') open.push({ user, id: String(order.id) });
          })
          .catch(() => failed++),
      );
    }, 7);
    await Promise.all(pending);
    return { placed: run.count, failed, seconds: run.seconds };
  };
  const d = await advanceWhile(progress, SECONDS, drive());
  progress.stop();
  for (const c of clients) c.send({ cmd: 'stop' });
  const stats = await Promise.all(clients.map((c) => next(c, 'stats')));
  gateway.send({ cmd: 'stop' });
  const { rssMb } = await next(gateway, 'stopped');
  // an id a connection saw that its user did not place (orders placed before the run: none here)
  let misdelivered = 0;
  for (const s of stats) {
    for (const [user, ids] of Object.entries(s.seen as Record<string, number[]>)) {
      for (const id of ids) if (owner.get(id) !== user) misdelivered++;
    }
  }
  const priv = summarize(stats.flatMap((s) => s.privateLatency as number[]));
  const mdl = summarize(stats.flatMap((s) => s.mdLatency as number[]));
  const gaps = stats.reduce((s, m) => s + (m.gaps as number), 0);
  const dropped = stats.reduce((s, m) => s + (m.dropped as number), 0);
  const updates = stats.reduce((s, m) => s + (m.updates as number), 0);
  printTable(
    `bench:private — ${USERS} users on one gateway, ${RATE} orders/s requested on ${PAIR}`,
    ['socket', 'frames measured', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms'],
    [
      ['private /ws/user (orders, fills, balances)', priv.n, priv.p50, priv.p90, priv.p99, priv.max],
      ['market data /ws (orderbook updates)', mdl.n, mdl.p50, mdl.p90, mdl.p99, mdl.max],
    ],
  );
  console.log(
    `\norders placed ${d.placed} (${(d.placed / d.seconds).toFixed(0)}/s, ${d.failed} refused), private updates ${updates}, ` +
      `seq gaps ${gaps}, misdelivered ${misdelivered}, connections dropped ${dropped}, gateway RSS ${String(rssMb)} MB; ` +
      `private p99 / market-data p99 x${(priv.p99 / mdl.p99).toFixed(2)}`,
  );
  const file = writeResults('private', {
    bench: 'private', users: USERS, marketDataClients: MD_CLIENTS, rate: RATE, seconds: SECONDS, clientProcesses: CLIENT_PROCS,
    orders: d, privateLatency: priv, marketDataLatency: mdl, updates, gaps, misdelivered, dropped, gatewayRssMb: rssMb,
    machine: machineInfo(redisServerVersion()),
  });
  console.log(`results: ${file}`);
  for (const c of [...clients, gateway]) c.kill('SIGTERM');
  await deleteByPrefix(ctx.redis as never, prefix);
  await ctx.close();
  await redis.stop();
  process.exit(gaps === 0 && misdelivered === 0 && dropped === 0 ? 0 : 1);
}

runBench(main, (role) => (role === 'clients' ? clientsChild() : gatewayChild()));
