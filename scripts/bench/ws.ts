/**
 * npm run bench:ws — the market-data websocket under fan-out (issue 4).
 *
 * One gateway (src/transport/ws, in a process of its own) with BENCH_CLIENTS websocket clients (in processes
 * of their own) all subscribed to the BTC_USDT spot order book, while this process drives
 * BENCH_RATE book-changing commands a second through the engine's Lua scripts (limit orders that
 * rest and cross, and cancels) for BENCH_SECONDS. Latency is from the command's timestamp (`ts`,
 * taken when the order service takes the request, so the engine path counts too) to the client's
 * receipt of the update. Before each gateway phase, the same clients are fed by a bare uWS
 * publisher at the same rate with no Redis behind it: the fan-out floor of this machine, the
 * baseline the real figures are a ratio to (docs/performance.md). The bare publisher stamps an
 * update with the time it was due (one every 1000/RATE ms), as the engine stamps a command, so
 * both figures count the wait for the publishing batch (BENCH_BASELINE_STAMP=publish stamps the
 * moment of publishing instead, the yardstick before 2026-11-28, which leaves that wait out). The
 * driver keeps the engine as busy during the baseline as during the gateway phase (its CPU and
 * Redis's are on the same 2 cores as the clients), so the ratio is what the gateway itself adds;
 * BENCH_BASELINE_ENGINE=idle leaves the engine idle then, as before 2026-11-28.
 *
 * BENCH_RUNS pairs of phases (baseline, then gateway); each run's ratios are printed, then their
 * medians. Beside the latencies: the CPU each process spent per second of load (the publisher or
 * gateway, the client processes, the driver and Redis), which unlike wall clock is not inflated by
 * other work on a shared box, and how long an update waited inside the server before it was handed
 * to uWS (its `ts` to the publish call: the stream read and the batch window).
 *
 * Env: BENCH_RUNS (5), BENCH_CLIENTS (2000), BENCH_RATE (250 per second), BENCH_SECONDS (20),
 * BENCH_BASELINE_SECONDS (as BENCH_SECONDS: a p99 over a shorter window catches fewer of the box's
 * hiccups), BENCH_SAMPLE_EVERY (every 10th client records latencies), BENCH_BATCH_MS (the
 * gateway's publish batch window, default its own), BENCH_CLIENT_PROCS (2 processes share the
 * clients, so the load generator is not the bottleneck it measures), BENCH_CPU_PROF (a directory:
 * the publisher and gateway processes write `--cpu-prof` profiles there), BENCH_MAX_SECONDS (1200),
 * REDIS_URL (else a private redis-server).
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import uWS from 'uWebSockets.js';
import { createLogger } from '../../src/platform/config/logger';
import { createContext, type AppContext } from '../../src/transport/context';
import { seedMarkets } from '../../src/markets/market-seeder';
import { advanceWhile, startProgress, type Progress } from '../lib/progress';
import { GATEWAY_DEFAULTS } from '../../src/transport/ws/ws-gateway';
import { startWsRole } from '../../src/transport/ws/ws-role';
import { MarketFeed } from '../../src/transport/ws/market-feed';
import { entryMs, type MarketEntry } from '../../src/platform/market-event';
import { next, reply, runBench, spawnRole, type Msg } from './lib/child-ipc';
import { gatewayBenchConfig, paced } from './lib/paced';
import { envInt, exitAfter } from './lib/deadline';
import { RawWsClient, wallClock } from './lib/raw-ws-client';
import { deleteByPrefix, startBenchRedis } from './lib/redis-server';
import { machineInfo, printTable, redisServerVersion, writeResults } from './lib/report';
import { median, summarize, type Summary } from './lib/stats';
import { serverCpuSeconds } from './lib/redis-info';

const RUNS = envInt('BENCH_RUNS', 5);
const CLIENTS = envInt('BENCH_CLIENTS', 2000);
const CLIENT_PROCS = envInt('BENCH_CLIENT_PROCS', 2);
const RATE = envInt('BENCH_RATE', 250);
const SECONDS = envInt('BENCH_SECONDS', 20);
const BASELINE_SECONDS = envInt('BENCH_BASELINE_SECONDS', SECONDS);
const SAMPLE_EVERY = envInt('BENCH_SAMPLE_EVERY', 10);
const MAX_SECONDS = envInt('BENCH_MAX_SECONDS', 1200);
const CPU_PROF_DIR = process.env.BENCH_CPU_PROF;
const STAMP_AT_PUBLISH = process.env.BENCH_BASELINE_STAMP === 'publish';
const BASELINE_ENGINE_LOAD = process.env.BENCH_BASELINE_ENGINE !== 'idle';
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
/** A publisher or gateway child, profiled when BENCH_CPU_PROF names a directory. */
const spawnServer = (role: string, env: NodeJS.ProcessEnv) =>
  spawnRole(__filename, role, env, CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF_DIR}`] : []);

/** CPU ms this process has used (user + system). */
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** The `ts` of a message that has one (an orderbook update), else NaN. */
const tsOf = (message: string) => {
  const at = message.indexOf('"ts":');
  return at < 0 ? NaN : parseInt(message.slice(at + 5, at + 25), 10);
};

/**
 * Wraps the publish of every uWS app made from here on, to record how long each update waited
 * in the gateway before it (its `ts` to the call): the stream read and the batch window, the part
 * of the latency before fan-out. The gateway itself is not changed for the bench.
 */
function recordPublishDelays(delays: number[], recording: () => boolean): void {
  const makeApp = uWS.App;
  Object.assign(uWS, {
    App: (options?: uWS.AppOptions) => {
      const app = options ? makeApp(options) : makeApp();
      const publish = app.publish.bind(app);
      app.publish = (topic, message, isBinary, compress) => {
        if (recording() && typeof message === 'string') {
          const ts = tsOf(message);
          if (!Number.isNaN(ts)) delays.push(Date.now() - ts);
        }
        return publish(topic, message, isBinary, compress);
      };
      return app;
    },
  });
}

/**
 * The commands a book entry carries: one engine call of the order service's group commit places
 * several orders (one `accepted` each); a cancel is one `done` of status `cancelled`. A fill's or
 * an expiry's `done` is part of the command that caused it, not a command.
 */
const commandsOf = (entry: MarketEntry): number =>
  entry.events.reduce((n, e) => n + (e.e === 'accepted' || (e.e === 'done' && e.status === 'cancelled') ? 1 : 0), 0);

/**
 * Wraps the market feeds' entry handler to split the wait before publishing: the command's `ts` to
 * its stream entry's id (the driver's queue and the script: Redis stamps the id at XADD), and the
 * id to the gateway's read of it. What is left of the publish delay is the batch window. It also
 * records how many commands each book entry (one message, its `seq`) carries, from the gateway's
 * start: the updates a client that received that message was given (`updatesDelivered`).
 */
function recordEntryDelays(toAppend: number[], toRead: number[], commandsBySeq: Map<number, number>, recording: () => boolean): void {
  const onEntry = MarketFeed.prototype.onEntry;
  MarketFeed.prototype.onEntry = function (this: MarketFeed, entry: MarketEntry) {
    if (entry.seq !== undefined) commandsBySeq.set(entry.seq, commandsOf(entry));
    if (recording() && entry.seq !== undefined) {
      const appended = entryMs(entry.id);
      toAppend.push(appended - entry.ts);
      toRead.push(Date.now() - appended);
    }
    onEntry.call(this, entry);
  };
}

/**
 * Book updates (engine commands) a client was given by the messages whose `seq`s it received,
 * `ranges` being runs of consecutive `seq`s [first, last, first, last, ...]: one per message from
 * the bare publisher (one command each), the commands of each message's entry from the gateway
 * (`commandsBySeq`; a message whose entry was not recorded counts one).
 */
function updatesDelivered(ranges: number[], commandsBySeq: Map<number, number> | null): number {
  let n = 0;
  for (let i = 0; i < ranges.length; i += 2) {
    if (!commandsBySeq) n += ranges[i + 1] - ranges[i] + 1;
    else for (let s = ranges[i]; s <= ranges[i + 1]; s++) n += commandsBySeq.get(s) ?? 1;
  }
  return n;
}

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
  // a profiled child writes its profile on a normal exit only
  process.on('SIGTERM', () => process.exit(0));
  let mem = memorySampler();
  let cpuAtDrive = 0;
  let recording = false;
  const delays: number[] = [];
  const appendDelays: number[] = [];
  const readDelays: number[] = [];
  const commandsBySeq = new Map<number, number>();
  const onDrive = () => {
    mem = memorySampler();
    cpuAtDrive = cpuMs();
    recording = true;
  };
  const stopped = (extra: Record<string, unknown> = {}) => {
    recording = false;
    reply({ cmd: 'stopped', memory: mem.report(), cpuMs: cpuMs() - cpuAtDrive, publishDelays: delays, appendDelays, readDelays, ...extra });
  };
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
        onDrive();
        timer = setInterval(() => {
          const now = Date.now();
          while (seq < ((now - start) * RATE) / 1000) {
            seq++;
            // when the update was due: the moment the engine would have stamped it
            const due = Math.floor(start + ((seq - 1) * 1000) / RATE);
            const ts = STAMP_AT_PUBLISH ? now : due;
            delays.push(now - ts);
            app.publish(
              TOPIC,
              JSON.stringify({
                channel: 'orderbook',
                type: 'update',
                market: PAIR,
                kind: 'spot',
                seq,
                ts,
                bids: [[49_990.12, 0.123456]],
                asks: [],
              }),
            );
          }
        }, BATCH_MS);
      }
      // the load is over (the driver stops its commands then): nothing more to publish
      if (m.cmd === 'halt') clearInterval(timer);
      if (m.cmd === 'stop') {
        clearInterval(timer);
        stopped({ published: seq, commandsBySeq: null });
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
  recordPublishDelays(delays, () => recording);
  recordEntryDelays(appendDelays, readDelays, commandsBySeq, () => recording);
  const ctx = await createContext(
    benchConfig(process.env.BENCH_REDIS_URL as string, process.env.BENCH_PREFIX as string),
    createLogger('silent'),
  );
  const ws = await startWsRole(ctx, { port: 0, batchMs: BATCH_MS });
  process.on('message', (m: Msg) => {
    if (m.cmd === 'drive') onDrive();
    if (m.cmd === 'stop') stopped({ commandsBySeq: [...commandsBySeq] });
  });
  reply({ cmd: 'ready', port: ws.port });
}

// ---------------------------------------------------------------- clients child

/**
 * What a client keeps of each update: the runs of consecutive `seq`s it received while `counting`
 * (every client: what it was given is counted by message content, not by frames), and, for a
 * sampled client, the latency from the update's `ts` to its receipt.
 */
const SEQ_FIELD = Buffer.from('"seq":');

class UpdateLog {
  /** [first, last, first, last, ...] */
  ranges: number[] = [];
  constructor(
    private readonly latencies: number[] | null,
    private readonly counting: () => boolean,
  ) {}

  readonly onText = (payload: Buffer, now: number) => {
    // counting starts once every client has its snapshot: what comes then are updates
    if (!this.counting()) return;
    const s = payload.indexOf(SEQ_FIELD);
    if (s < 0) return;
    const seq = parseInt(payload.toString('latin1', s + 6, s + 26), 10);
    const r = this.ranges;
    if (r.length && r[r.length - 1] === seq - 1) r[r.length - 1] = seq;
    else r.push(seq, seq);
    if (this.latencies) {
      const at = payload.indexOf('"ts":');
      if (at >= 0) this.latencies.push(now - parseInt(payload.toString('latin1', at + 5, at + 25), 10));
    }
  };
}

async function clientsChild(): Promise<void> {
  let clients: RawWsClient[] = [];
  let logs: UpdateLog[] = [];
  let latencies: number[] = [];
  let counting = false;
  let t0 = 0;
  let cpuAtStart = 0;
  let framesAtStart = 0;
  process.on('message', async (m: Msg) => {
    if (m.cmd === 'connect') {
      clients = [];
      logs = [];
      latencies = [];
      const port = m.port as number;
      const count = m.count as number;
      for (let i = 0; i < count; i += 100) {
        await Promise.all(
          Array.from(
            { length: Math.min(100, count - i) },
            (_, j) =>
              new Promise<void>((resolve) => {
                const log = new UpdateLog((i + j) % SAMPLE_EVERY === 0 ? latencies : null, () => counting);
                logs.push(log);
                clients.push(new RawWsClient(port, '/ws', [SUBSCRIBE], log.onText, resolve));
              }),
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
      for (const l of logs) l.ranges = [];
      counting = true;
      framesAtStart = clients.reduce((s, c) => s + c.frames, 0);
      t0 = wallClock();
      cpuAtStart = cpuMs();
    }
    if (m.cmd === 'stop') {
      // let the last updates arrive
      await new Promise((r) => setTimeout(r, 500));
      counting = false;
      const seconds = (wallClock() - t0) / 1000;
      const cpu = cpuMs() - cpuAtStart;
      const frames = clients.reduce((s, c) => s + c.frames, 0) - framesAtStart;
      const dropped = clients.filter((c) => c.closed).length;
      for (const c of clients) c.close();
      reply({
        cmd: 'stats',
        latencies: latencies.map((x) => Math.round(x * 10) / 10),
        frames,
        ranges: logs.map((l) => l.ranges),
        seconds,
        dropped,
        cpuMs: cpu,
      });
    }
  });
  reply({ cmd: 'ready' });
}

// ---------------------------------------------------------------- driver (this process)

interface Phase {
  name: string;
  latency: Summary;
  /** Its `ts` to the publish call, inside the server (the gateway's stream read and batch window). */
  publishDelay: Summary;
  /** The gateway only: a command's `ts` to its XADD (the driver and the script), and XADD to the gateway's read. */
  appendDelay: Summary;
  readDelay: Summary;
  messagesPerSec: number;
  /**
   * Book updates delivered a second over all clients: per message received, the commands its
   * entry carried (one for the bare publisher's). The group commit puts several commands into one
   * engine call, one entry, one message; counting messages would call that a loss.
   */
  updatesPerSec: number;
  /**
   * Updates delivered / (updates produced x clients): the share of what the source produced that
   * reached the clients within the window. Both sources produce RATE a second, so the two phases'
   * ratio is their ratio of updates delivered a second over the same production, free of how long
   * each phase's window lasted.
   */
  updatesDelivered: number;
  commandsPerSec: number;
  bookUpdatesPerSec: number;
  /** Messages delivered / (book updates x clients): 1 when every client got every update. */
  delivered: number;
  dropped: number;
  /** Engine commands refused or timed out during the phase. */
  failed: number;
  /** CPU ms per second of load: the publisher or gateway, the client processes, the driver, Redis. */
  cpu: { server: number; clients: number; driver: number; redis: number };
  gatewayMemory: { rssMaxMb: number; rssEndMb: number; heapUsedMaxMb: number };
}

interface Drive {
  commands: number;
  /** Commands refused or timed out (none on a box with room to spare). */
  failed: number;
  bookUpdates: number;
  seconds: number;
  driverCpuMs: number;
  redisCpuMs: number;
}

async function runPhase(
  name: string,
  gateway: ChildProcess,
  clients: ChildProcess[],
  drive: () => Promise<Drive>,
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
  // both sources stop producing when the load ends (the bare publisher would go on publishing while
  // the clients take their last updates, the engine's driver does not)
  send(gateway, { cmd: 'halt' });
  for (const c of clients) send(c, { cmd: 'stop' });
  const stats = await Promise.all(clients.map((c) => next(c, 'stats')));
  send(gateway, { cmd: 'stop' });
  const server = await next(gateway, 'stopped');
  gateway.kill('SIGTERM');
  const frames = stats.reduce((s, m) => s + (m.frames as number), 0);
  const seconds = Math.max(...stats.map((m) => m.seconds as number));
  const bySeq = server.commandsBySeq ? new Map(server.commandsBySeq as [number, number][]) : null;
  const updates = stats.reduce((s, m) => s + (m.ranges as number[][]).reduce((t, r) => t + updatesDelivered(r, bySeq), 0), 0);
  // what the source produced: the bare publisher's messages, the engine's commands that went through
  const produced = bySeq ? d.commands - d.failed : (server.published as number);
  const perSec = (ms: number) => ms / d.seconds;
  return {
    name,
    latency: summarize(stats.flatMap((m) => m.latencies as number[])),
    publishDelay: summarize(server.publishDelays as number[]),
    appendDelay: summarize(server.appendDelays as number[]),
    readDelay: summarize(server.readDelays as number[]),
    messagesPerSec: frames / seconds,
    updatesPerSec: updates / seconds,
    updatesDelivered: updates / (produced * CLIENTS),
    commandsPerSec: d.commands / d.seconds,
    bookUpdatesPerSec: d.bookUpdates / d.seconds,
    delivered: frames / (d.bookUpdates * CLIENTS),
    dropped: stats.reduce((s, m) => s + (m.dropped as number), 0),
    failed: d.failed,
    cpu: {
      server: perSec(server.cpuMs as number),
      clients: perSec(stats.reduce((s, m) => s + (m.cpuMs as number), 0)),
      driver: perSec(d.driverCpuMs),
      redis: perSec(d.redisCpuMs),
    },
    gatewayMemory: server.memory as Phase['gatewayMemory'],
  };
}

/** The driver's CPU and Redis's over `load` (ms), beside what it returns. */
async function withCpu(
  redis: Parameters<typeof serverCpuSeconds>[0],
  load: () => Promise<Omit<Drive, 'driverCpuMs' | 'redisCpuMs'>>,
): Promise<Drive> {
  const redisBefore = await serverCpuSeconds(redis);
  const before = cpuMs();
  const r = await load();
  const driverCpuMs = cpuMs() - before;
  return { ...r, driverCpuMs, redisCpuMs: ((await serverCpuSeconds(redis)) - redisBefore) * 1000 };
}

/**
 * RATE book-changing commands a second for `seconds` through the spot order service (limit orders
 * that rest and cross, and cancels), one every 1000/RATE ms on a timer, so the load is steady
 * rather than in bursts. A cancel that finds its order filled meanwhile places a resting order
 * instead: every command changes the book. (The order service's group commit still puts orders
 * that arrive while a script call runs into one call, one stream entry and one `seq`, so a busy
 * box sees fewer, larger book updates than commands.)
 */
async function driveEngine(
  ctx: AppContext,
  seconds: number,
  seed: number,
  open: { user: string; id: string }[],
): Promise<{ commands: number; failed: number; bookUpdates: number; seconds: number }> {
  const seqBefore = Number((await ctx.redis.get(ctx.keys.bookSeq('spot', PAIR))) ?? 0);
  // a command the engine refused or timed out (a starved box) changes nothing: the book sequence counts what did
  const refused = () => void failed++;
  let failed = 0;
  const place = (user: string, rand: () => number, crossing: boolean) => {
    const side = rand() < 0.5 ? 'buy' : 'sell';
    const offset = (rand() * 0.02 + (crossing ? -0.003 : 0.0005)) * 50_000;
    const price = Math.round((side === 'buy' ? 50_000 - offset : 50_000 + offset) * 100) / 100;
    const amount = Math.round((0.001 + rand() * 0.05) * 1e6) / 1e6;
    void ctx.spot.orders.place(user, { currencyPairCode: PAIR, side, type: 'limit', price, amount }).then(({ order }) => {
      if (order.status === 'open' || order.status === 'partiallyFilled') open.push({ user, id: String(order.id) });
    }, refused);
  };
  const run = await paced(
    RATE,
    seconds,
    (_i, rand) => {
      const user = rand() < 0.5 ? 'mm1' : 'mm2';
      if (open.length > 400 || (open.length > 50 && rand() < 0.3)) {
        const [o] = open.splice(Math.floor(rand() * open.length), 1);
        void ctx.spot.orders.cancel(o.user, o.id).catch(() => place(o.user, rand, false));
        return;
      }
      // mostly resting within 2 % of 50,000, a tenth crossing the spread
      place(user, rand, rand() < 0.1);
    },
    seed,
  );
  const seqAfter = Number((await ctx.redis.get(ctx.keys.bookSeq('spot', PAIR))) ?? 0);
  return { commands: run.count, failed, bookUpdates: seqAfter - seqBefore, seconds: run.seconds };
}

interface Run {
  baseline: Phase;
  gateway: Phase;
  ratio: { p99: number; p50: number; messagesPerSec: number; updates: number };
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
    `bench:ws — ${CLIENTS} clients, ${RATE} commands/s, batch ${BATCH_MS} ms; ${RUNS} runs of baseline ${BASELINE_SECONDS} s then gateway ${SECONDS} s; baseline stamped ${STAMP_AT_PUBLISH ? 'at publish' : 'when due'}`,
  );
  const progress = startProgress('bench:ws', RUNS * (BASELINE_SECONDS + SECONDS), { unit: 's of load' });
  const open: { user: string; id: string }[] = [];
  let seed = 1;
  const runs: Run[] = [];
  for (let run = 1; run <= RUNS; run++) {
    const baseline = await runPhase(
      'bare uWS publisher (baseline)',
      spawnServer('baseline', env),
      clients,
      () =>
        withCpu(ctx.redis, async () => {
          // the engine busy as in the gateway phase, so both phases share the box alike
          const engine = BASELINE_ENGINE_LOAD
            ? await driveEngine(ctx, BASELINE_SECONDS, seed++, open)
            : await new Promise<undefined>((r) => setTimeout(() => r(undefined), BASELINE_SECONDS * 1000));
          const n = RATE * BASELINE_SECONDS;
          return { commands: n, failed: engine?.failed ?? 0, bookUpdates: n, seconds: BASELINE_SECONDS };
        }),
      { progress, seconds: BASELINE_SECONDS },
    );

    const gateway = await runPhase(
      'gateway (Redis streams)',
      spawnServer('gateway', env),
      clients,
      () => withCpu(ctx.redis, () => driveEngine(ctx, SECONDS, seed++, open)),
      { progress, seconds: SECONDS },
    );
    const ratio = {
      p99: gateway.latency.p99 / baseline.latency.p99,
      p50: gateway.latency.p50 / baseline.latency.p50,
      messagesPerSec: gateway.messagesPerSec / baseline.messagesPerSec,
      updates: gateway.updatesDelivered / baseline.updatesDelivered,
    };
    runs.push({ baseline, gateway, ratio });
    console.log(
      `run ${run}: gateway / baseline p99 x${ratio.p99.toFixed(2)} (${gateway.latency.p99} / ${baseline.latency.p99} ms), updates delivered x${ratio.updates.toFixed(3)} (messages/s x${ratio.messagesPerSec.toFixed(3)})`,
    );
  }
  progress.stop();

  for (const c of clients) c.kill('SIGTERM');
  printTable(
    `bench:ws — ${CLIENTS} clients on one gateway, all subscribed to the ${PAIR} book`,
    [
      'run',
      'server',
      'book updates/s',
      'msgs/s delivered',
      'updates/s delivered',
      'updates delivered / produced',
      'delivered',
      'p50 ms',
      'p99 ms',
      'max ms',
      'ts to XADD p50 / p99 ms',
      'XADD to read',
      'ts to publish',
      'CPU ms/s server',
      'clients',
      'driver',
      'Redis',
      'dropped',
      'refused',
      'RSS max MB',
    ],
    runs.flatMap((r, i) =>
      [r.baseline, r.gateway].map((p) => [
        `${i + 1}`,
        p.name,
        p.bookUpdatesPerSec,
        p.messagesPerSec,
        p.updatesPerSec,
        p.updatesDelivered,
        p.delivered,
        p.latency.p50,
        p.latency.p99,
        p.latency.max,
        `${p.appendDelay.p50} / ${p.appendDelay.p99}`,
        `${p.readDelay.p50} / ${p.readDelay.p99}`,
        `${p.publishDelay.p50} / ${p.publishDelay.p99}`,
        p.cpu.server,
        p.cpu.clients,
        p.cpu.driver,
        p.cpu.redis,
        p.dropped,
        p.failed,
        p.gatewayMemory.rssMaxMb,
      ]),
    ),
  );
  console.log('\ngateway / baseline, each run:');
  runs.forEach((r, i) =>
    console.log(
      `  run ${i + 1}: p99 x${r.ratio.p99.toFixed(2)}, p50 x${r.ratio.p50.toFixed(2)}, updates delivered x${r.ratio.updates.toFixed(3)}, messages/s x${r.ratio.messagesPerSec.toFixed(3)}`,
    ),
  );
  const medians = {
    p99: median(runs.map((r) => r.ratio.p99)),
    p50: median(runs.map((r) => r.ratio.p50)),
    messagesPerSec: median(runs.map((r) => r.ratio.messagesPerSec)),
    updates: median(runs.map((r) => r.ratio.updates)),
  };
  console.log(
    `median of ${RUNS}: p99 x${medians.p99.toFixed(2)}, p50 x${medians.p50.toFixed(2)}, updates delivered x${medians.updates.toFixed(3)} (messages/s x${medians.messagesPerSec.toFixed(3)})`,
  );
  const file = writeResults('ws', {
    bench: 'ws',
    clients: CLIENTS,
    clientProcesses: CLIENT_PROCS,
    rate: RATE,
    seconds: SECONDS,
    baselineSeconds: BASELINE_SECONDS,
    baselineStamp: STAMP_AT_PUBLISH ? 'publish' : 'due',
    batchMs: BATCH_MS,
    sampleEvery: SAMPLE_EVERY,
    runs,
    medians,
    machine: machineInfo(redisServerVersion()),
  });
  console.log(`results: ${file}`);
  await deleteByPrefix(ctx.redis as never, prefix);
  await ctx.close();
  await redis.stop();
  process.exit(0);
}

runBench(main, (role) => (role === 'clients' ? clientsChild() : gatewayChild(role)));
