import type { ChainableCommander } from 'ioredis';
import { Histogram } from 'prom-client';
import type { RedisClient } from './connection';
import { loadLuaScripts, type LuaScript } from './lua-loader';

export const luaLatency = new Histogram({
  name: 'lua_script_duration_seconds',
  help: 'Latency of engine Lua scripts, as seen by the caller',
  labelNames: ['script'],
  buckets: [0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5],
});

type ScriptCaller = (...args: (string | number)[]) => Promise<unknown>;

/**
 * The engine's Lua scripts, registered on a connection as ioredis commands (EVALSHA, falling back
 * to EVAL and so reloading on NOSCRIPT). `run` times each call; `queue` adds one to a pipeline.
 */
export class Scripts {
  readonly byName: Map<string, LuaScript>;

  constructor(
    readonly redis: RedisClient,
    scripts: LuaScript[] = loadLuaScripts(),
  ) {
    this.byName = new Map(scripts.map((s) => [s.name, s]));
    for (const s of scripts) {
      if (!(s.name in redis)) redis.defineCommand(s.name, { numberOfKeys: s.numberOfKeys, lua: s.lua });
    }
  }

  /** Loads every script into the server's cache up front, so the first calls do not pay for EVAL. */
  async preload(): Promise<void> {
    await Promise.all([...this.byName.values()].map((s) => this.redis.script('LOAD', s.lua)));
  }

  async loaded(): Promise<boolean> {
    const shas = [...this.byName.values()].map((s) => s.sha);
    const found = (await this.redis.script('EXISTS', ...shas)) as number[];
    return found.every((x) => x === 1);
  }

  async run<T>(name: string, keys: string[], args: (string | number)[]): Promise<T> {
    const end = luaLatency.startTimer({ script: name });
    try {
      return (await this.caller(this.redis, name)(...keys, ...args)) as T;
    } finally {
      end();
    }
  }

  queue(pipeline: ChainableCommander, name: string, keys: string[], args: (string | number)[]): void {
    this.caller(pipeline, name)(...keys, ...args);
  }

  private caller(target: unknown, name: string): ScriptCaller {
    const script = this.byName.get(name);
    if (!script) throw new Error(`unknown Lua script ${name}`);
    const fn = (target as Record<string, ScriptCaller>)[name];
    return fn.bind(target);
  }
}
