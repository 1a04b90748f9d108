import { connect as connectTcp, createServer, type Server, type Socket } from 'node:net';
import Redis, { type RedisOptions } from 'ioredis';
import { failUnanswered } from '../../src/platform/redis/command-deadline';
import { createRedis } from '../../src/platform/redis/connection';
import { dropWhenSilent } from '../../src/platform/redis/silence-watchdog';

/**
 * The engine connection's two clocks (command-deadline.ts, silence-watchdog.ts) give up on a
 * server that does not answer, and never on one whose reply is merely waiting for a busy event
 * loop to read it.
 */
const blockEventLoop = (ms: number) => {
  const end = Date.now() + ms;
  while (Date.now() < end); // synchronous on purpose: the loop reads nothing meanwhile
};

/** A TCP proxy to Redis whose open connections can stop passing anything on, as if the server had stopped. */
async function freezableProxy(target: string) {
  const { hostname, port } = new URL(target);
  const frozen = new Set<Socket>();
  let count = 0;
  const sockets: Socket[] = [];
  const server = createServer((client) => {
    count++;
    const upstream = connectTcp(Number(port), hostname);
    sockets.push(client, upstream);
    client.on('data', (d) => frozen.has(client) || upstream.write(d));
    upstream.on('data', (d) => frozen.has(client) || client.write(d));
    for (const s of [client, upstream]) s.on('error', () => undefined);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `redis://127.0.0.1:${(server.address() as { port: number }).port}`,
    /** Every connection open now goes silent; later ones work. */
    freeze: () => sockets.forEach((s) => frozen.add(s)),
    connections: () => count,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

let silent: Server;
let silentUrl: string;
const accepted: Socket[] = [];
beforeAll(async () => {
  silent = createServer((socket) => accepted.push(socket)); // accepts, never answers: a stopped server
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  silentUrl = `redis://127.0.0.1:${(silent.address() as { port: number }).port}`;
});
afterAll(async () => {
  for (const s of accepted) s.destroy();
  await new Promise<void>((r) => silent.close(() => r()));
});

function connect(url: string, opts: RedisOptions = {}): Redis {
  const r = new Redis(url, { maxRetriesPerRequest: 0, enableReadyCheck: false, ...opts });
  r.on('error', () => undefined);
  return r;
}

describe('command deadline', () => {
  it('a reply that came while the event loop was busy past the deadline still counts', async () => {
    const r = connect(process.env.REDIS_URL as string);
    failUnanswered(r, 100);
    try {
      await r.ping();
      const pending = r.echo('late but there');
      blockEventLoop(400);
      await expect(pending).resolves.toBe('late but there');
    } finally {
      r.disconnect();
    }
  });

  it("ioredis's own commandTimeout gives the same reply up (why the engine does not use it)", async () => {
    const r = connect(process.env.REDIS_URL as string, { commandTimeout: 100 });
    try {
      await r.ping();
      const pending = r.echo('late but there');
      blockEventLoop(400);
      await expect(pending).rejects.toThrow('Command timed out');
    } finally {
      r.disconnect();
    }
  });

  it('a server that never answers: the command fails with "Command timed out"', async () => {
    const r = connect(silentUrl);
    failUnanswered(r, 100);
    try {
      await expect(r.get('k')).rejects.toThrow('Command timed out');
    } finally {
      r.disconnect();
    }
  });
});

describe('silence watchdog', () => {
  it('drops a connection to a server gone silent, failing what was in flight, and reconnects', async () => {
    const proxy = await freezableProxy(process.env.REDIS_URL as string);
    const r = connect(proxy.url);
    dropWhenSilent(r, 200);
    const errors: string[] = [];
    r.on('error', (err: Error) => errors.push(err.message));
    try {
      await new Promise<void>((resolve) => r.once('ready', () => resolve()));
      const connected = proxy.connections();
      proxy.freeze(); // the server stops answering on this connection, as under SIGSTOP
      await expect(r.get('k')).rejects.toThrow(/max retries per request/i);
      expect(errors.some((m) => /no reply from Redis for 200 ms/.test(m))).toBe(true);
      await new Promise<void>((resolve) => r.once('ready', () => resolve()));
      expect(proxy.connections()).toBeGreaterThan(connected); // a new connection
      await expect(r.ping()).resolves.toBe('PONG');
    } finally {
      r.disconnect();
      await proxy.close();
    }
  });

  it('keeps a connection whose replies only waited for a busy event loop', async () => {
    const r = createRedis({ url: process.env.REDIS_URL as string, commandTimeoutMs: 200 }) as Redis;
    const errors: string[] = [];
    r.on('error', (err: Error) => errors.push(err.message));
    // the loop is busy for 500 ms right after the watchdog's PING is written (auto-pipelining
    // writes it in this same check phase), while its answer waits unread: the worst moment
    let busyAfterPing = 0;
    const ping = r.ping.bind(r) as () => Promise<string>;
    (r as unknown as { ping: () => Promise<string> }).ping = () => {
      const answered = ping();
      if (busyAfterPing > 0) {
        busyAfterPing--;
        setImmediate(() => blockEventLoop(500));
      }
      return answered;
    };
    try {
      await new Promise<void>((resolve) => r.once('ready', () => resolve()));
      busyAfterPing = 5;
      while (busyAfterPing > 0) await new Promise((res) => setTimeout(res, 20));
      await new Promise((res) => setTimeout(res, 300)); // the watchdog's checks after the last one
      expect(errors).toEqual([]);
      expect(r.status).toBe('ready');
      await expect(r.echo('still here')).resolves.toBe('still here');
    } finally {
      r.disconnect();
    }
  });
});
