import { request } from 'node:http';
import Redis from 'ioredis';

/**
 * The image's HEALTHCHECK: probes each role this container runs (ROLES) and exits 0 when all
 * answer, 1 with the failing probe's reason otherwise (Docker keeps the output).
 *   api    GET /ready on PORT must answer 200 (Redis answers, the Lua library is loaded)
 *   ws     the uWS listener on WS_PORT must answer HTTP (it has no /ready: any status proves
 *          its event loop is serving)
 *   worker Redis at REDIS_URL must answer PING (the worker has no port of its own)
 */
const TIMEOUT_MS = 3000;

function httpStatus(port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, timeout: TIMEOUT_MS }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer on port ${port} within ${TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end();
  });
}

async function probeApi(): Promise<void> {
  const port = Number(process.env.PORT ?? 8080);
  const status = await httpStatus(port, '/ready');
  if (status !== 200) throw new Error(`GET /ready on port ${port} answered ${status}`);
}

async function probeWs(): Promise<void> {
  await httpStatus(Number(process.env.WS_PORT ?? 8081), '/');
}

async function probeWorker(): Promise<void> {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', {
    lazyConnect: true,
    connectTimeout: TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  let refused: Error | undefined; // the socket's own error says more than "Connection is closed"
  redis.on('error', (err: Error) => (refused = err));
  try {
    await redis.connect();
    const answer = await redis.ping();
    if (answer !== 'PONG') throw new Error(`Redis answered ${answer} to PING`);
  } catch (err) {
    throw refused ?? err;
  } finally {
    redis.disconnect();
  }
}

const probes: Record<string, () => Promise<void>> = { api: probeApi, ws: probeWs, worker: probeWorker };

async function main(): Promise<void> {
  const roles = (process.env.ROLES ?? 'api,ws,worker').split(',').filter((r) => r in probes);
  for (const role of roles) {
    try {
      await probes[role]();
    } catch (err) {
      console.error(`${role}: ${(err as Error).message}`);
      process.exit(1);
    }
  }
  console.log(`healthy: ${roles.join(', ')}`);
  process.exit(0);
}

void main();
