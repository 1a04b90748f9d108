/**
 * A ws role in a process of its own, for tests that kill it: configured from the environment like
 * `npm start` (REDIS_URL, KEY_PREFIX, JWT_SECRET, WS_PORT); prints `ready <port>` once it listens.
 */
import { loadConfig } from '../../src/platform/config/env';
import { createLogger } from '../../src/platform/config/logger';
import { createContext } from '../../src/transport/context';
import { startWsRole } from '../../src/transport/ws/ws-role';

async function main(): Promise<void> {
  const config = loadConfig();
  const ctx = await createContext(config, createLogger(config.logLevel));
  const ws = await startWsRole(ctx);
  process.stdout.write(`ready ${ws.port}\n`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
