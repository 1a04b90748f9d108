import type { ChainableCommander } from 'ioredis';
import { Cluster, Command } from 'ioredis';
import { Histogram } from 'prom-client';
import type { RedisClient } from './connection';
import { buildLuaLibrary, type LuaLibrary, type LuaScript } from './lua-loader';
import { randomUUID } from 'node:crypto';
import calculateSlot from 'cluster-key-slot';
import type { Keys } from './keys';
import { lostReply, notApplied, operationFor, type Operation } from './operation';
import { RedisClock } from './redis-clock';
import { isRedisUnavailable, wasNeverSent } from './unavailable';

export const luaLatency = new Histogram({
  name: 'lua_script_duration_seconds',
  help: 'Latency of engine Lua scripts, as seen by the caller',
  labelNames: ['script'],
  buckets: [0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5],
});

/**
 * The engine's Lua scripts, called as Redis Functions of one versioned library (docs/architecture.md:
 * an EVALSHA script re-created its ~40 included functions on every call, a fifth of a resting
 * order's server time). `run` times each call and, when the server has lost the library (FUNCTION
 * FLUSH, a fresh replica), loads it and calls again: a missing function ran nothing, so the retry is
 * safe. `queue` adds a call to a pipeline; its caller loads the library first (`preload`).
 */
export class Scripts {
  readonly byName: Map<string, LuaScript>;
  /** The clock exactly-once deadlines are set on: the server's own, each master of a cluster its own (redis-clock.ts). */
  readonly clock: RedisClock;

  constructor(
    readonly redis: RedisClient,
    readonly library: LuaLibrary = buildLuaLibrary(),
    /**
     * How long after it is sent an exactly-once command may still run, on the server's clock: the
     * engine connection's command timeout, after which the service treats the reply as lost.
     */
    readonly operationDeadlineMs = 1000,
  ) {
    this.byName = new Map(library.scripts.map((s) => [s.name, s]));
    // a lone server answers TIME itself; in a cluster, a function routed by the key asks the master of its slot
    const cluster = redis instanceof Cluster ? redis : undefined;
    this.clock = new RedisClock(
      (key) => (cluster ? this.run<[string, string]>('readClock', [key], []) : (redis as Exclude<RedisClient, Cluster>).time()),
      (key) => (cluster ? (cluster.slots[calculateSlot(key)]?.[0] ?? '') : ''),
    );
  }

  /**
   * Loads the library on every master that lacks this version (its name carries the version; a
   * compile of the whole library is slow enough to pass a short command timeout on a busy host)
   * and reads each one's clock, so that pipelines (`queueOnce`) have it from the start.
   */
  async preload(): Promise<void> {
    await Promise.all(
      this.masters().map(async (n) => {
        if (!(await this.loadedOn(n))) await n.call('FUNCTION', 'LOAD', 'REPLACE', this.library.code);
        await this.clock.learnFrom(this.redis instanceof Cluster ? `${n.options.host}:${n.options.port}` : '', () => n.time());
      }),
    );
  }

  async loaded(): Promise<boolean> {
    const each = await Promise.all(this.masters().map((n) => this.loadedOn(n)));
    return each.every(Boolean);
  }

  private async loadedOn(n: ReturnType<Scripts['masters']>[number]): Promise<boolean> {
    const list = (await n.call('FUNCTION', 'LIST', 'LIBRARYNAME', this.library.name)) as unknown[];
    return list.length > 0;
  }

  async run<T>(name: string, keys: string[], args: (string | number)[], once = false): Promise<T> {
    const fn = this.functionOf(name, once ? keys.slice(0, -1) : keys, once);
    const end = luaLatency.startTimer({ script: name });
    const reply = (r: unknown) => (once ? onceReply(name, r) : r) as T;
    try {
      try {
        return reply(await this.redis.fcall(fn, keys.length, ...keys, ...args));
      } catch (err) {
        if (!isFunctionMissing(err)) throw err;
        await this.preload();
        return reply(await this.redis.fcall(fn, keys.length, ...keys, ...args));
      }
    } finally {
      end();
    }
  }

  /**
   * Runs a state-changing script exactly once (docs/architecture.md, Exactly once): its
   * exactly-once form records the reply under `op.key` in the same atomic step, and refuses to run
   * past a deadline set on the server's own clock. When the reply is lost (the connection dropped
   * or timed out after the command was sent), the outcome is asked of the server by that key, which
   * also fences this attempt so a late copy of its command cannot run: the caller gets the reply
   * the script gave, or a 503 saying nothing was done, never a second run. A keyed operation whose
   * earlier attempt was fenced is reopened to this attempt, which then runs (or finds it ran).
   */
  async runOnce<T>(name: string, keys: string[], args: (string | number)[], op: Operation): Promise<T> {
    let attempt = randomUUID();
    try {
      const first = await this.sendOnce<T>(name, keys, args, op, attempt);
      if (!isFenced(first)) return first;
      // only a keyed operation meets an earlier attempt's fence (a fresh one is fenced only after its own reply is lost)
      if (!op.keyed) throw notApplied();
      attempt = randomUUID();
      const [state, reply] = await this.run<[string, T?]>('reopenOperation', [op.key], [op.ttlSeconds, attempt]);
      if (state === 'RAN') return reply as T;
      const again = await this.sendOnce<T>(name, keys, args, op, attempt);
      // another retry of the same request named itself meanwhile: it runs, this one answers nothing done
      if (isFenced(again)) throw notApplied();
      return again;
    } catch (err) {
      if (!isRedisUnavailable(err)) throw err;
      // refused before sending: nothing ran, so nothing to ask or fence
      if (wasNeverSent(err)) throw notApplied();
      return lostReply<T>(() => this.run<[string, T?]>('fenceOperation', [op.key], [op.ttlSeconds, attempt]));
    }
  }

  /**
   * `runOnce` under this call's operation on `shard` (the Keys of the script's engine shard, where
   * the record goes): derived from the request's Idempotency-Key and the script's keys in a keyed
   * request, fresh otherwise (src/platform/redis/operation.ts).
   */
  runOnceFor<T>(name: string, keys: string[], args: (string | number)[], shard: Keys): Promise<T> {
    return this.runOnce<T>(name, keys, args, operationFor(shard, name, keys));
  }

  /** One attempt of an exactly-once call, with its deadline on the clock of the server that runs it. */
  private async sendOnce<T>(name: string, keys: string[], args: (string | number)[], op: Operation, attempt: string): Promise<T> {
    // known after the first call: then the command goes out in this tick (group commit relies on it)
    const now = this.clock.now(op.key) ?? (await this.learnClock(op.key));
    const reply = await this.run<T>(name, [...keys, op.key], [...args, op.ttlSeconds, now + this.operationDeadlineMs, attempt], true);
    if (isRefused(reply, 'OPERATION_ABORTED')) throw notApplied();
    return reply;
  }

  private async learnClock(routingKey: string): Promise<number> {
    try {
      return await this.clock.learn(routingKey);
    } catch (err) {
      // the clock could not be read: the command itself was never sent
      if (isRedisUnavailable(err)) throw notApplied();
      throw err;
    }
  }

  /**
   * Runs a script on another connection than the engine's (the transfer relay's own link to a shard,
   * whose writes it then makes durable there). The library is on every master already (`preload`).
   */
  async runOn<T>(client: RedisClient, name: string, keys: string[], args: (string | number)[]): Promise<T> {
    const fn = this.functionOf(name, keys);
    const end = luaLatency.startTimer({ script: name });
    try {
      try {
        return (await client.fcall(fn, keys.length, ...keys, ...args)) as T;
      } catch (err) {
        // a master back without the library (as `run`): a missing function ran nothing
        if (!isFunctionMissing(err)) throw err;
        await this.preload();
        return (await client.fcall(fn, keys.length, ...keys, ...args)) as T;
      }
    } finally {
      end();
    }
  }

  queue(pipeline: ChainableCommander, name: string, keys: string[], args: (string | number)[]): void {
    pipeline.fcall(this.functionOf(name, keys), keys.length, ...keys, ...args);
  }

  /**
   * The exactly-once form in a pipeline (benchmarks: the server's work of `runOnce`, without its
   * recovery); its result in the pipeline's is decoded as `runOnce`'s is.
   */
  queueOnce(pipeline: ChainableCommander, name: string, keys: string[], args: (string | number)[], op: Operation): void {
    const fn = this.functionOf(name, keys, true);
    const now = this.clock.now(op.key);
    if (now === undefined) throw new Error('the Redis clock has not been read yet: call preload (or make one exactly-once call) first');
    const deadline = now + this.operationDeadlineMs;
    // the command `pipeline.fcall` would queue, with the decoding on its reply
    const fields = [fn, keys.length + 1, ...keys, op.key, ...args, op.ttlSeconds, deadline, randomUUID()];
    const command = new Command('fcall', fields, { replyEncoding: 'utf8' });
    const transform = command.transformReply.bind(command);
    command.transformReply = (result) => onceReply(name, transform(result)) as string;
    (pipeline as unknown as { sendCommand(c: Command): unknown }).sendCommand(command);
  }

  /** Every server that holds functions: the masters of a cluster, or the one server. */
  private masters() {
    return this.redis instanceof Cluster ? this.redis.nodes('master') : [this.redis];
  }

  private functionOf(name: string, keys: string[], once = false): string {
    const script = this.byName.get(name);
    if (!script) throw new Error(`unknown Lua script ${name}`);
    const { numberOfKeys: fixed, keysPerItem: per } = script;
    const fits = per ? keys.length > fixed && (keys.length - fixed) % per === 0 : keys.length === fixed;
    if (!fits) {
      const wanted = per ? `${fixed} + ${per} per item` : String(fixed);
      throw new Error(`Lua script ${name} takes ${wanted} keys, called with ${keys.length}`);
    }
    return this.library.functionName(name, once);
  }
}

/**
 * The exactly-once form's refusals (lua/includes/operationRecord.lua), neither of which ran anything:
 * OPERATION_FENCED, a fence names another attempt; OPERATION_ABORTED, the deadline had passed.
 */
function isRefused(reply: unknown, code: 'OPERATION_FENCED' | 'OPERATION_ABORTED'): boolean {
  return Array.isArray(reply) && reply[0] === 'ERR' && reply[1] === code;
}

const isFenced = (reply: unknown) => isRefused(reply, 'OPERATION_FENCED');

/** The scripts whose exactly-once form answers a first run with its record's JSON text (Lua `answerAsRecord`). */
const ANSWERS_AS_RECORD = new Set(['createFuturesOrders', 'placeSpotOrders']);

/**
 * The reply of an exactly-once form. A batch's list of per-item lists (createFuturesOrders,
 * placeSpotOrders) comes as the JSON text of its operation record (lua/includes/operationRecord.lua:
 * cheaper for Redis than RESP of nested tables), read here into what RESP would have given: true is 1, false is null, a
 * number its integer part, {} (cjson's empty table) []. A repeat answers the record decoded, as RESP,
 * and so does every other script.
 */
function onceReply(name: string, reply: unknown): unknown {
  return ANSWERS_AS_RECORD.has(name) && typeof reply === 'string' ? JSON.parse(reply, asResp) : reply;
}

function asResp(_key: string, v: unknown): unknown {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return Math.trunc(v);
  if (v === true) return 1;
  if (v === false) return null;
  if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0) return [];
  return v;
}

function isFunctionMissing(err: unknown): boolean {
  return err instanceof Error && /Function not found/i.test(err.message);
}
