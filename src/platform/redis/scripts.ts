import type { ChainableCommander } from 'ioredis';
import { Cluster, Command } from 'ioredis';
import { Histogram } from 'prom-client';
import type { RedisClient } from './connection';
import { buildLuaLibrary, type LuaLibrary, type LuaScript } from './lua-loader';
import { lostReply, notApplied, type Operation } from './operation';
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

  constructor(
    readonly redis: RedisClient,
    readonly library: LuaLibrary = buildLuaLibrary(),
    /**
     * How long after it is sent an exactly-once command may still run: the engine connection's
     * command timeout, after which the service treats the reply as lost and answers its client.
     */
    readonly operationDeadlineMs = 1000,
  ) {
    this.byName = new Map(library.scripts.map((s) => [s.name, s]));
  }

  /** Loads the library on every master (REPLACE: loading the same version twice is harmless). */
  async preload(): Promise<void> {
    await Promise.all(this.masters().map((n) => n.call('FUNCTION', 'LOAD', 'REPLACE', this.library.code)));
  }

  async loaded(): Promise<boolean> {
    const lists = await Promise.all(
      this.masters().map((n) => n.call('FUNCTION', 'LIST', 'LIBRARYNAME', this.library.name) as Promise<unknown[]>),
    );
    return lists.every((l) => l.length > 0);
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
   * Runs a state-changing script exactly once (docs/api-contract.md#exactly-once): its exactly-once form records the reply
   * under `op.key` in the same atomic step. When the reply is lost (the connection dropped or timed
   * out after the command was sent), the outcome is asked of the server by that key, which also
   * fences the operation so a late copy of the command cannot run: the caller gets the reply the
   * script gave, or a 503 saying nothing was done, never a second run.
   */
  async runOnce<T>(name: string, keys: string[], args: (string | number)[], op: Operation): Promise<T> {
    try {
      return await this.run<T>(name, [...keys, op.key], [...args, op.ttlSeconds, Date.now() + this.operationDeadlineMs], true);
    } catch (err) {
      if (!isRedisUnavailable(err)) throw err;
      // refused before sending: nothing ran, so nothing to ask or fence
      if (wasNeverSent(err)) throw notApplied();
      return lostReply<T>(() => this.run<[string, T?]>('fenceOperation', [op.key], [op.ttlSeconds]));
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
    const deadline = Date.now() + this.operationDeadlineMs;
    // the command `pipeline.fcall` would queue, with the decoding on its reply
    const command = new Command('fcall', [fn, keys.length + 1, ...keys, op.key, ...args, op.ttlSeconds, deadline], { replyEncoding: 'utf8' });
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

/** The scripts whose exactly-once form answers a first run with its record's JSON text (Lua `answerAsRecord`). */
const ANSWERS_AS_RECORD = new Set(['createFuturesOrders']);

/**
 * The reply of an exactly-once form. A batch's list of per-item lists (createFuturesOrders) comes as
 * the JSON text of its operation record (lua/includes/operationRecord.lua: cheaper for Redis than
 * RESP of nested tables), read here into what RESP would have given: true is 1, false is null, a
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
