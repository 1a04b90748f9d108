/**
 * npm run bench:outage — Redis goes away for 25 s under load (issue 11's acceptance): `npm start`
 * (api, ws, worker) against a redis-server of its own, admin deposits from many loops, each to a
 * user of its own, so afterwards each deposit's fate is that user's balance. Per mode (`kill`: a
 * crash and a restart from AOF; `stop`: SIGSTOP then SIGCONT, a stalled server) it prints how
 * many requests were sent while Redis was away, the longest answer among them, how many were
 * answered 200 and lost, how many ran after their answer, and how soon the service recovered.
 *
 * Env: OUTAGE_SECONDS (25), BENCH_MODES (kill,stop), BENCH_CONCURRENCY (32), BENCH_PACE_MS (20),
 * WARMUP_SECONDS (3), AFTER_SECONDS (5), CLIENT_LIMIT_MS (10000: a request unanswered this long
 * counts as given up), BENCH_MAX_SECONDS (900). The service runs with its defaults
 * (REDIS_COMMAND_TIMEOUT_MS 1000 unless set).
 */
import { randomBytes } from 'node:crypto';
import { creditedUsers, depositLoad } from '../lib/outage/deposit-load';
import { outageReport, type OutageReport } from '../lib/outage/outage-report';
import { RedisUnderTest, type OutageMode } from '../lib/outage/redis-under-test';
import { startService } from '../lib/outage/service-process';
import { envInt, exitAfter } from './lib/deadline';
import { machineInfo, printTable, redisServerVersion, writeResults } from './lib/report';

const OUTAGE_SECONDS = envInt('OUTAGE_SECONDS', 25);
const CONCURRENCY = envInt('BENCH_CONCURRENCY', 32);
const PACE_MS = envInt('BENCH_PACE_MS', 20);
const WARMUP_SECONDS = envInt('WARMUP_SECONDS', 3);
const AFTER_SECONDS = envInt('AFTER_SECONDS', 5);
const CLIENT_LIMIT_MS = envInt('CLIENT_LIMIT_MS', 10_000);
const MAX_SECONDS = envInt('BENCH_MAX_SECONDS', 900);
/** The acceptance bound for an answer while Redis is away. */
const ANSWER_WITHIN_MS = 2000;
const MODES = (process.env.BENCH_MODES ?? 'kill,stop').split(',') as OutageMode[];

interface ModeResult {
  mode: OutageMode;
  report: OutageReport;
  /** /ready asked once a second while Redis was away: how many answered 503. */
  readyWhileDown: { asked: number; notReady: number };
  serviceAlive: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function drill(mode: OutageMode): Promise<ModeResult> {
  const secret = randomBytes(32).toString('hex');
  const redis = await RedisUnderTest.start();
  const service = await startService({ ...process.env, REDIS_URL: redis.url, JWT_SECRET: secret, KEY_PREFIX: 'bench', LOG_LEVEL: 'info' });
  const api = `http://127.0.0.1:${service.apiPort}`;
  try {
    const load = depositLoad({
      apiUrl: api,
      secret,
      run: mode,
      concurrency: CONCURRENCY,
      paceMs: PACE_MS,
      clientLimitMs: CLIENT_LIMIT_MS,
      amount: 7,
    });
    await sleep(WARMUP_SECONDS * 1000);
    console.log(`${mode}: ${load.samples.length} deposits in ${WARMUP_SECONDS} s of warm-up; Redis goes away for ${OUTAGE_SECONDS} s`);
    const down = Date.now();
    await redis.interrupt(mode);
    const readyWhileDown = { asked: 0, notReady: 0 };
    while (Date.now() - down < OUTAGE_SECONDS * 1000) {
      await sleep(1000);
      const status = await fetch(`${api}/ready`, { signal: AbortSignal.timeout(5000) }).then((r) => r.status, () => 0);
      readyWhileDown.asked++;
      if (status === 503) readyWhileDown.notReady++;
    }
    await redis.resume(mode);
    const up = Date.now();
    await sleep(AFTER_SECONDS * 1000);
    const samples = await load.stop();
    console.log(`${mode}: ${samples.length} deposits sent; reading every user's balance`);
    const credited = await creditedUsers(api, secret, samples.map((s) => s.user), 32);
    return {
      mode,
      report: outageReport(samples, credited, { down, up }, ANSWER_WITHIN_MS),
      readyWhileDown,
      serviceAlive: service.alive(),
    };
  } finally {
    await service.stop();
    await redis.stop();
  }
}

async function main(): Promise<void> {
  exitAfter(MAX_SECONDS, 'bench:outage');
  const results: ModeResult[] = [];
  for (const mode of MODES) results.push(await drill(mode));
  printTable(
    `Redis away for ${OUTAGE_SECONDS} s under deposits (${CONCURRENCY} loops, ${PACE_MS} ms apart)`,
    [
      'mode',
      'requests',
      'sent while away',
      '503',
      '200',
      `max latency (ms)`,
      `over ${ANSWER_WITHIN_MS} ms`,
      'other answers',
      '200 but lost',
      'ran after answer',
      'in flight, 503, ran',
      '/ready 503',
      'recovery (ms)',
      'failures outside',
      'alive',
    ],
    results.map(({ mode, report: r, readyWhileDown: rd, serviceAlive }) =>
      [
        mode,
        r.requests,
        r.inWindow,
        r.inWindow503,
        r.inWindowOk,
        r.maxLatencyInWindowMs,
        r.slowInWindow,
        r.unexpected.map((u) => `${u.count}×${u.status}${u.code ? ` ${u.code}` : ''}`).join(', ') || '0',
        r.lostWrites,
        r.executedAfterAnswer,
        r.inFlightAppliedDespite503,
        `${rd.notReady}/${rd.asked}`,
        Math.round(r.recoveryMs),
        r.failuresOutside,
        serviceAlive ? 'yes' : 'NO',
      ].map((cell) => (typeof cell === 'number' ? cell.toLocaleString('en-US') : cell)),
    ),
  );
  const file = writeResults('redis-outage', {
    machine: machineInfo(redisServerVersion()),
    settings: { OUTAGE_SECONDS, CONCURRENCY, PACE_MS, WARMUP_SECONDS, AFTER_SECONDS, CLIENT_LIMIT_MS },
    results,
  });
  console.log(`\nresults: ${file}`);
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
