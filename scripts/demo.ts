import { Shutdown } from '../src/bin/shutdown';
import { withDevSecret } from '../src/platform/config/dev-secret';
import { loadConfig } from '../src/platform/config/env';
import { startDemo } from '../src/demo/demo-market';
import { startProgress } from './lib/progress';

/**
 * `npm run demo`: market makers and takers on every listed pair, through the public API of a
 * running service (`npm start` in another terminal). Runs until Ctrl-C / SIGTERM, or for
 * DEMO_SECONDS; then cancels its open orders and exits.
 *
 *   DEMO_API_URL   api role to talk to (default http://127.0.0.1:$PORT, PORT default 8080)
 *   DEMO_SECONDS   stop after this many seconds (default: run until stopped)
 *   DEMO_MAKERS, DEMO_LEVELS, DEMO_NOTIONAL   makers per market, quote levels per side, order size
 *   JWT_SECRET     the api role's HS256 secret; the demo signs an admin token with it. Unset, it
 *                  uses the development secret `npm start` keeps under DATA_DIR, as `npm run token` does
 */
/** How long the demo may take to cancel its orders and close its positions on Ctrl-C. */
const STOP_DEADLINE_MS = 10_000;

async function main(): Promise<void> {
  const { config } = withDevSecret(loadConfig());
  if (!config.jwtSecret) throw new Error('demo: JWT_PUBLIC_KEY deployments verify RS256 tokens; the demo signs HS256 with JWT_SECRET');
  const log = (line: string) => console.log(`${new Date().toISOString()} ${line}`);
  const num = (name: string) => (process.env[name] ? Number(process.env[name]) : undefined);
  const demo = await startDemo({
    apiUrl: process.env.DEMO_API_URL ?? `http://127.0.0.1:${config.port}`,
    jwtSecret: config.jwtSecret,
    log,
    makersPerMarket: num('DEMO_MAKERS'),
    levels: num('DEMO_LEVELS'),
    notional: num('DEMO_NOTIONAL'),
  });
  // Ctrl-C: the demo cancels what it placed, within STOP_DEADLINE_MS; a second Ctrl-C exits at once
  const line = (first: unknown, msg?: string) => log(`demo: ${typeof first === 'string' ? first : (msg ?? '')}`);
  const shutdown = new Shutdown({ info: line, warn: line, error: line } as never, STOP_DEADLINE_MS);
  shutdown.add('demo', () => demo.stop());
  shutdown.onSignals();
  const stop = (why: string) => {
    log(`demo: stopping (${why})`);
    void shutdown.run(0);
  };
  const seconds = num('DEMO_SECONDS');
  if (seconds) {
    // a bar on a terminal, plain lines otherwise, while a timed run lasts
    const progress = startProgress('demo', seconds, { unit: 's' });
    const tick = setInterval(() => progress.increment(1), 1000);
    setTimeout(() => {
      clearInterval(tick);
      progress.stop();
      stop(`${seconds} s elapsed`);
    }, seconds * 1000);
  }
}

main().catch((err) => {
  console.error((err as Error).message);
  process.exit(1);
});
