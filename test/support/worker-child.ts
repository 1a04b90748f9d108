/**
 * A worker role in a process of its own, for tests that kill it: configured from the environment
 * like `npm start` (COPY_FANOUT_CHUNK and the like too), the dispatcher with its processors and the
 * copy-trading processors, with short takeover times; prints `ready` once they run.
 */
import { loadConfig } from '../../src/platform/config/env';
import { createLogger } from '../../src/platform/config/logger';
import { createContext } from '../../src/transport/context';
import { startWorkerRole } from '../../src/transport/workers/worker-role';
import { startCopyWorkers } from '../../src/copy';

/** A job a dead worker held is taken over 2 s after its last lock renewal. */
const TAKEOVER = { lockDurationMs: 2000, stalledIntervalMs: 500 };

async function main(): Promise<void> {
  const config = loadConfig();
  const ctx = await createContext(config, createLogger(config.logLevel));
  await startWorkerRole(ctx, { ...TAKEOVER, claimIdleMs: 1000, claimEveryMs: 300, blockMs: 200 });
  await startCopyWorkers(ctx, TAKEOVER);
  process.stdout.write('ready\n');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
