/**
 * npm run bench:ws — the market-data websocket under fan-out (issue 4).
 *
 * One gateway (src/transport/ws, in a process of its own) with BENCH_CLIENTS websocket clients (in processes
 * of their own) all subscribed to the BTC_USDT spot order book, while this process drives
 * BENCH_RATE book-changing commands a second through the engine's Lua scripts (limit orders that
 * rest and cross, and cancels) for BENCH_SECONDS. Latency is from the command's timestamp (`ts`,
 * taken just before the script appends the stream entry, so it slightly over-counts) to the
 * client's receipt of the update. Before the real run, the same clients are fed by a bare uWS
 * publisher at the same rate with no Redis behind it: the fan-out floor of this machine, the
 * baseline the real figures are a ratio to (docs/performance.md).
 *
 * Env: BENCH_CLIENTS (2000), BENCH_RATE (250 per second), BENCH_SECONDS (30),
 * BENCH_BASELINE_SECONDS (10), BENCH_SAMPLE_EVERY (every 10th client records latencies),
 * BENCH_BATCH_MS (the gateway's publish batch window, default its own), BENCH_CLIENT_PROCS (2
 * processes share the clients, so the load generator is not the bottleneck it measures),
 * BENCH_MAX_SECONDS (300), REDIS_URL (else a private redis-server).
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import uWS from 'uWebSockets.js';
import { createLogger } from '../../src/platform/config/logger';
import { createContext } from '../../src/transport/context';
import { seedMarkets } from '../../src/markets/market-seeder';
import { advanceWhile, startProgress, type Progress } from '../lib/progress';
import { GATEWAY_DEFAULTS } from '../../src/transport/ws/ws-gateway';
import { startWsRole } from '../../src/transport/ws/ws-role';
import { next, reply, runBench, spawnRole, type Msg } from './lib/child-ipc';
import { gatewayBenchConfig, paced } from './lib/paced';
import { envInt, exitAfter } from './lib/deadline';
import { RawWsClient, wallClock } from './lib/raw-ws-client';
import { deleteByPrefix, startBenchRedis } from './lib/redis-server';
import { machineInfo, printTable, redisServerVersion, writeResults } from './lib/report';
import { summarize, type Summary } from './lib/stats';

const CLIENTS = envInt('BENCH_CLIENTS', 2000);
const CLIENT_PROCS = envInt('BENCH_CLIENT_PROCS', 2);
const RATE = envInt('BENCH_RATE', 250);
const SECONDS = envInt('BENCH_SECONDS', 30);
const BASELINE_SECONDS = envInt('BENCH_BASELINE_SECONDS', 10);
const SAMPLE_EVERY = envInt('BENCH_SAMPLE_EVERY', 10);
const MAX_SECONDS = envInt('BENCH_MAX_SECONDS', 300);
const BATCH_MS = envInt('BENCH_BATCH_MS', GATEWAY_DEFAULTS.batchMs);
const PAIR = 'BTC_USDT';
const TOPIC = `orderbook/spot/${PAIR}`;
const SUBSCRIBE = JSON.stringify({ op: 'subscribe', channel: 'orderbook', market: PAIR, kind: 'spot' });

const benchConfig = gatewayBenchConfig;

// ---------------------------------------------------------------- child processes and IPC

function send(child: ChildProcess, m: Msg): void {
  child.send(m);
}

const spawnSelf = (role: string, env: NodeJS.ProcessEnv) => spawnRole(__filename, role, env);

// ---------------------------------------------------------------- gateway child

/** Samples the gateway's memory every second while it runs. */
function memorySampler() {
  const samples: { rss: number; heapUsed: number }[] = [];
  const t = setInterval(() => {
    const m = process.memoryUsage();
    samples.push({ rss: m.rss, heapUsed: m.heapUsed });
  }, 1000);
  return {
    report() {
      clearInterval(t);
      const mb = (x: number) => Math.round((x / 2 ** 20) * 10) / 10;
      return {
        rssMaxMb: mb(Math.max(...samples.map((s) => s.rss))),
        rssEndMb: mb(samples[samples.length - 1]?.rss ?? process.memoryUsage().rss),
        heapUsedMaxMb: mb(Math.max(...samples.map((s) => s.heapUsed))),
      };
    },
  };
}

async function gatewayChild(mode: string): Promise<void> {
  let mem = memorySampler();
  if (mode === 'baseline') {
    // A bare uWS publisher: accepts the same subscribe, publishes messages of the same shape and
    // size at the same rate, in batches as often as the gateway flushes.
    const app = uWS.App().ws('/ws', {
      maxBackpressure: 1024 * 1024,
      closeOnBackpressureLimit: 1,
      idleTimeout: 60,
      sendPingsAutomatically: true,
      message: (ws) => {
        ws.subscribe(TOPIC);
        ws.send(JSON.stringify({ op: 'subscribed' }));
        ws.send(
          JSON.stringify({
            channel: 'orderbook',
            type: 'snapshot',
            market: PAIR,
            kind: 'spot',
            seq: 0,
            bids: [],
            asks: [],
          }),
        );
      },
    });
    let timer: NodeJS.Timeout | undefined;
    let seq = 0;
    process.on('message', (m: Msg) => {
      if (m.cmd === 'drive') {
        const start = Date.now();
        timer = setInterval(() => {
          while (seq < ((Date.now() - start) * RATE) / 1000) {
            seq++;
            app.publish(
              TOPIC,
              JSON.stringify({
                channel: 'orderbook',
                type: 'update',
                market: PAIR,
                kind: 'spot',
                seq,
                ts: Date.now(),
                bids: [[49_990.12, 0.123456]],
                asks: [],
              }),
            );
          }
        }, BATCH_MS);
        mem = memorySampler();
      }
      if (m.cmd === 'stop') {
        clearInterval(timer);
        reply({ cmd: 'stopped', memory: mem.report(), published: seq });
      }
    });
    app.listen(0, (ls) => {
      reply(
        ls
          ? { cmd: 'ready', port: uWS.us_socket_local_port(ls) }
          : { cmd: 'error', message: 'listen failed' },
      );
    });
    return;
  }
  const ctx = await createContext(
    benchConfig(process.env.BENCH_REDIS_URL as string, process.env.BENCH_PREFIX as string),
    createLogger('silent'),
  );
  const ws = await startWsRole(ctx, { port: 0, batchMs: BATCH_MS });
  process.on('message', (m: Msg) => {
    if (m.cmd === 'drive') mem = memorySampler();
    if (m.cmd === 'stop') reply({ cmd: 'stopped', memory: mem.report() });
  });
  reply({ cmd: 'ready', port: ws.port });
}

// ---------------------------------------------------------------- clients child

/** Latency from an update's `ts` to its receipt; only sampled clients look inside a frame. */
function tsLatency(latencies: number[]) {
  return (payload: Buffer, now: number) => {
    const at = payload.indexOf('"ts":');
    if (at >= 0) latencies.push(now - parseInt(payload.toString('latin1', at + 5, at + 25), 10));
  };
}

async function clientsChild(): Promise<void> {
  let clients: RawWsClient[] = [];
  let latencies: number[] = [];
  let t0 = 0;
  let framesAtStart = 0;
  process.on('message', async (m: Msg) => {
    if (m.cmd === 'connect') {
      clients = [];
      latencies = [];
      const port = m.port as number;
      const count = m.count as number;
      for (let i = 0; i < count; i += 100) {
        await Promise.all(
          Array.from(
            { length: Math.min(100, count - i) },
            (_, j) =>
              new Promise<void>((resolve) =>
                clients.push(
                  new RawWsClient(port, '/ws', [SUBSCRIBE], (i + j) % SAMPLE_EVERY === 0 ? tsLatency(latencies) : null, resolve),
                ),
              ),
          ),
        );
      }
      // every client has its ack and snapshot before the clock starts
      const deadline = Date.now() + 30_000;
      while (clients.some((c) => c.frames < 2 && !c.closed) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      reply({ cmd: 'connected', open: clients.filter((c) => !c.closed).length });
    }
    if (m.cmd === 'start') {
      latencies.length = 0;
      framesAtStart = clients.reduce((s, c) => s + c.frames, 0);
      t0 = wallClock();
    }
    if (m.cmd === 'stop') {
      // let the last updates arrive
      await new Promise((r) => setTimeout(r, 500));
      const seconds = (wallClock() - t0) / 1000;
      const frames = clients.reduce((s, c) => s + c.frames, 0) - framesAtStart;
      const dropped = clients.filter((c) => c.closed).length;
      for (const c of clients) c.close();
      reply({
        cmd: 'stats',
        latencies: latencies.map((x) => Math.round(x * 10) / 10),
        frames,
        seconds,
        dropped,
      });
    }
  });
  reply({ cmd: 'ready' });
}

// ---------------------------------------------------------------- driver (this process)

interface Phase {
  name: string;
  latency: Summary;
  messagesPerSec: number;
  commandsPerSec: number;
  bookUpdatesPerSec: number;
  dropped: number;
  gatewayMemory: { rssMaxMb: number; rssEndMb: number; heapUsedMaxMb: number };
}

async function runPhase(
  name: string,
  gateway: ChildProcess,
  clients: ChildProcess[],
  drive: () => Promise<{ commands: number; bookUpdates: number; seconds: number }>,
  load: { progress: Progress; seconds: number },
): Promise<Phase> {
  const { port } = await next(gateway, 'ready');
  const share = (i: number) => Math.floor(CLIENTS / clients.length) + (i < CLIENTS % clients.length ? 1 : 0);
  clients.forEach((c, i) => send(c, { cmd: 'connect', port, count: share(i) }));
  const open = (await Promise.all(clients.map((c) => next(c, 'connected')))).reduce(
    (s, m) => s + (m.open as number),
    0,
  );
  if (open !== CLIENTS) throw new Error(`${name}: only ${open} of ${CLIENTS} clients connected`);
  send(gateway, { cmd: 'drive' });
  for (const c of clients) send(c, { cmd: 'start' });
  const d = await advanceWhile(load.progress, load.seconds, drive());
  for (const c of clients) send(c, { cmd: 'stop' });
  const stats = await Promise.all(clients.map((c) => next(c, 'stats')));
  send(gateway, { cmd: 'stop' });
  const { memory } = await next(gateway, 'stopped');
  gateway.kill('SIGTERM');
  const frames = stats.reduce((s, m) => s + (m.frames as number), 0);
  const seconds = Math.max(...stats.map((m) => m.seconds as number));
  return {
    name,
    latency: summarize(stats.flatMap((m) => m.latencies as number[])),
    messagesPerSec: frames / seconds,
    commandsPerSec: d.commands / d.seconds,
    bookUpdatesPerSec: d.bookUpdates / d.seconds,
    dropped: stats.reduce((s, m) => s + (m.dropped as number), 0),
    gatewayMemory: memory as Phase['gatewayMemory'],
  };
}

async function main(): Promise<void> {
  exitAfter(MAX_SECONDS, 'bench:ws');
  const redis = await startBenchRedis();
  const prefix = `bws${randomBytes(3).toString('hex')}`;
  const config = benchConfig(redis.url, prefix);
  const ctx = await createContext(config, createLogger('silent'));
  await seedMarkets(config.marketsFile, ctx.markets.service, ctx.log);
  for (const u of ['mm1', 'mm2']) {
    await ctx.wallets.deposit(u, 'USDT', 50_000_000);
    await ctx.wallets.deposit(u, 'BTC', 10_000);
  }
  const env = { ...process.env, BENCH_REDIS_URL: redis.url, BENCH_PREFIX: prefix };
  const clients = Array.from({ length: CLIENT_PROCS }, () => spawnSelf('clients', env));
  await Promise.all(clients.map((c) => next(c, 'ready')));

  console.log(
    `bench:ws — ${CLIENTS} clients, ${RATE} commands/s, batch ${BATCH_MS} ms; baseline ${BASELINE_SECONDS} s, gateway ${SECONDS} s`,
  );
  const progress = startProgress('bench:ws', BASELINE_SECONDS + SECONDS, { unit: 's of load' });
  const baseline = await runPhase(
    'bare uWS publisher (baseline)',
    spawnSelf('baseline', env),
    clients,
    async () => {
      await new Promise((r) => setTimeout(r, BASELINE_SECONDS * 1000));
      const n = RATE * BASELINE_SECONDS;
      return { commands: n, bookUpdates: n, seconds: BASELINE_SECONDS };
    },
    { progress, seconds: BASELINE_SECONDS },
  );

  const gateway = await runPhase('gateway (Redis streams)', spawnSelf('gateway', env), clients, async () => {
    const streamKey = ctx.keys.events('spot', PAIR);
    const seqBefore = Number((await ctx.redis.get(ctx.keys.bookSeq('spot', PAIR))) ?? 0);
    const open: { user: string; id: string }[] = [];
    // one command every 1000/RATE ms on a timer, so the load is steady rather than in bursts
    const { count: commands, seconds } = await paced(RATE, SECONDS, (_i, rand) => {
      const user = rand() < 0.5 ? 'mm1' : 'mm2';
      if (open.length > 400 || (open.length > 50 && rand() < 0.3)) {
        const [o] = open.splice(Math.floor(rand() * open.length), 1);
        void ctx.spot.orders.cancel(o.user, o.id).catch(() => undefined);
        return;
      }
      const side = rand() < 0.5 ? 'buy' : 'sell';
      // mostly resting within 2 % of 50,000, a tenth crossing the spread
      const offset = (rand() * 0.02 + (rand() < 0.1 ? -0.003 : 0.0005)) * 50_000;
      const price = Math.round((side === 'buy' ? 50_000 - offset : 50_000 + offset) * 100) / 100;
      const amount = Math.round((0.001 + rand() * 0.05) * 1e6) / 1e6;
      void ctx.spot.orders
        .place(user, { currencyPairCode: PAIR, side, type: 'limit', price, amount })
        .then(({ order }) => {
          if (order.status === 'open' || order.status === 'partiallyFilled')
            open.push({ user, id: String(order.id) });
        });
    });
    const seqAfter = Number((await ctx.redis.get(ctx.keys.bookSeq('spot', PAIR))) ?? 0);
    await ctx.redis.xlen(streamKey);
    return { commands, bookUpdates: seqAfter - seqBefore, seconds };
  }, { progress, seconds: SECONDS });
  progress.stop();

  for (const c of clients) c.kill('SIGTERM');
  const phases = [baseline, gateway];
  printTable(
    `bench:ws — ${CLIENTS} clients on one gateway, all subscribed to the ${PAIR} book`,
    [
      'run',
      'book updates/s',
      'msgs/s delivered',
      'p50 ms',
      'p99 ms',
      'max ms',
      'dropped',
      'gateway RSS max MB',
      'heap max MB',
    ],
    phases.map((p) => [
      p.name,
      p.bookUpdatesPerSec,
      p.messagesPerSec,
      p.latency.p50,
      p.latency.p99,
      p.latency.max,
      p.dropped,
      p.gatewayMemory.rssMaxMb,
      p.gatewayMemory.heapUsedMaxMb,
    ]),
  );
  const ratio = {
    p99VsBaseline: gateway.latency.p99 / baseline.latency.p99,
    messagesPerSecVsBaseline: gateway.messagesPerSec / baseline.messagesPerSec,
  };
  console.log(
    `\ngateway / baseline: p99 latency x${ratio.p99VsBaseline.toFixed(2)}, messages/s x${ratio.messagesPerSecVsBaseline.toFixed(2)}`,
  );
  const file = writeResults('ws', {
    bench: 'ws',
    clients: CLIENTS,
    clientProcesses: CLIENT_PROCS,
    rate: RATE,
    seconds: SECONDS,
    baselineSeconds: BASELINE_SECONDS,
    batchMs: BATCH_MS,
    sampleEvery: SAMPLE_EVERY,
    phases,
    ratio,
    machine: machineInfo(redisServerVersion()),
  });
  console.log(`results: ${file}`);
  await deleteByPrefix(ctx.redis as never, prefix);
  await ctx.close();
  await redis.stop();
  process.exit(0);
}

runBench(main, (role) => (role === 'clients' ? clientsChild() : gatewayChild(role)));
