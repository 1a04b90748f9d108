import type { ChainableCommander } from 'ioredis';
import { Cluster } from 'ioredis';
import { Histogram } from 'prom-client';
import type { RedisClient } from './connection';
import { buildLuaLibrary, type LuaLibrary, type LuaScript } from './lua-loader';

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

  async run<T>(name: string, keys: string[], args: (string | number)[]): Promise<T> {
    const fn = this.functionOf(name, keys);
    const end = luaLatency.startTimer({ script: name });
    try {
      try {
        return (await this.redis.fcall(fn, keys.length, ...keys, ...args)) as T;
      } catch (err) {
        if (!isFunctionMissing(err)) throw err;
        await this.preload();
        return (await this.redis.fcall(fn, keys.length, ...keys, ...args)) as T;
      }
    } finally {
      end();
    }
  }

  queue(pipeline: ChainableCommander, name: string, keys: string[], args: (string | number)[]): void {
    pipeline.fcall(this.functionOf(name, keys), keys.length, ...keys, ...args);
  }

  /** Every server that holds functions: the masters of a cluster, or the one server. */
  private masters() {
    return this.redis instanceof Cluster ? this.redis.nodes('master') : [this.redis];
  }

  private functionOf(name: string, keys: string[]): string {
    const script = this.byName.get(name);
    if (!script) throw new Error(`unknown Lua script ${name}`);
    const { numberOfKeys: fixed, keysPerItem: per } = script;
    const fits = per ? keys.length > fixed && (keys.length - fixed) % per === 0 : keys.length === fixed;
    if (!fits) {
      const wanted = per ? `${fixed} + ${per} per item` : String(fixed);
      throw new Error(`Lua script ${name} takes ${wanted} keys, called with ${keys.length}`);
    }
    return this.library.functionName(name);
  }
}

function isFunctionMissing(err: unknown): boolean {
  return err instanceof Error && /Function not found/i.test(err.message);
}
