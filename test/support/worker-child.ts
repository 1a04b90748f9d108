/**
 * A worker role in a process of its own, for tests that kill it: configured from the environment
 * like `npm start`, with short takeover times; prints `ready` once the dispatcher runs.
 */
import { loadConfig } from '../../src/platform/config/env';
import { createLogger } from '../../src/platform/config/logger';
import { createContext } from '../../src/transport/context';
import { startWorkerRole } from '../../src/transport/workers/worker-role';

async function main(): Promise<void> {
  const config = loadConfig();
  const ctx = await createContext(config, createLogger(config.logLevel));
  await startWorkerRole(ctx, {
    claimIdleMs: 1000,
    claimEveryMs: 300,
    lockDurationMs: 2000,
    stalledIntervalMs: 500,
    blockMs: 200,
  });
  process.stdout.write('ready\n');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
