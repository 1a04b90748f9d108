import { createServer, type Server, type Socket } from 'node:net';
import Redis from 'ioredis';
import { MaxRetriesPerRequestError } from 'ioredis/built/errors';
import { createRedis } from '../../src/platform/redis/connection';
import { freePort } from '../../src/platform/redis/redis-server-process';
import { isRedisUnavailable, wasNeverSent } from '../../src/platform/redis/unavailable';

/** The errors ioredis really raises while Redis is away are told apart from replies and bugs. */
describe('isRedisUnavailable', () => {
  let silent: Server;
  let silentPort: number;
  const accepted: Socket[] = [];
  beforeAll(async () => {
    // accepts connections and never answers: a server that has stopped
    silent = createServer((socket) => accepted.push(socket));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    silentPort = (silent.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const s of accepted) s.destroy();
    await new Promise<void>((r) => silent.close(() => r()));
  });

  async function failure(run: () => Promise<unknown>): Promise<Error> {
    try {
      await run();
    } catch (err) {
      return err as Error;
    }
    throw new Error('expected a failure');
  }

  it('an engine connection refused by a closed port fails at once, and that is unavailability', async () => {
    const conn = createRedis({ url: `redis://127.0.0.1:${await freePort()}`, commandTimeoutMs: 300 });
    conn.on('error', () => undefined);
    try {
      const err = await failure(() => conn.get('k'));
      expect(err.message).toMatch(/enableOfflineQueue/);
      expect(isRedisUnavailable(err)).toBe(true);
    } finally {
      conn.disconnect();
    }
  });

  it('a command to a silent server times out, and that is unavailability', async () => {
    const conn = new Redis({ port: silentPort, host: '127.0.0.1', commandTimeout: 200, enableReadyCheck: false, maxRetriesPerRequest: 0 });
    conn.on('error', () => undefined);
    try {
      const err = await failure(() => conn.get('k'));
      expect(isRedisUnavailable(err)).toBe(true);
    } finally {
      conn.disconnect();
    }
  });

  it('ioredis classes and socket codes count; replies and bugs do not', () => {
    expect(isRedisUnavailable(new MaxRetriesPerRequestError(0))).toBe(true);
    expect(isRedisUnavailable(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).toBe(true);
    expect(isRedisUnavailable(new Error('Connection is closed.'))).toBe(true);
    // ioredis aborts the commands of a pipeline in flight when the connection closes: sent, outcome unknown
    const aborted = Object.assign(new Error('Command aborted due to connection close'), { name: 'AbortError' });
    expect([isRedisUnavailable(aborted), wasNeverSent(aborted)]).toEqual([true, false]);
    // a cluster in failover: ioredis gives up redirecting, or a node vanished while slots were read
    expect(isRedisUnavailable(new Error('Too many Cluster redirections. Last error: ReplyError: CLUSTERDOWN The cluster is down'))).toBe(true);
    expect(isRedisUnavailable(new Error('Node is disconnected'))).toBe(true);
    expect(isRedisUnavailable(new Error('LOADING Redis is loading the dataset in memory'))).toBe(true);
    // a MOVED or ASK reply that reached the caller (ioredis follows them, except in a mixed pipeline)
    expect(isRedisUnavailable(new Error('MOVED 9466 127.0.0.1:46103'))).toBe(true);
    expect(isRedisUnavailable(new Error('ASK 652 127.0.0.1:7001'))).toBe(true);
    expect(isRedisUnavailable(new Error('ERR Error running script: MOVED is not a reply here'))).toBe(false);
    expect(isRedisUnavailable(new Error('WRONGTYPE Operation against a key holding the wrong kind of value'))).toBe(false);
    expect(isRedisUnavailable(new Error('ERR Error running script: user_function:12: attempt to index a nil value'))).toBe(false);
    expect(isRedisUnavailable(new TypeError("Cannot read properties of undefined (reading 'busy')"))).toBe(false);
    expect(isRedisUnavailable('Connection is closed.')).toBe(false);
  });
});
