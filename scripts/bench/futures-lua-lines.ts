/**
 * npm run profile:futures-lines — where a futures order's Lua bytecode goes, line by line: the VM
 * instructions of createFuturesOrders, sampled by a count hook every PROFILE_EVERY instructions
 * (deterministic: the same flow samples the same lines, whatever else the box runs).
 *
 * Needs a redis-server whose functions can reach `debug` (stock Redis removes it once its error
 * handler is made): build one from the Redis sources with the line `"debug = nil\n"` of
 * src/function_lua.c emptied, and pass it as PROFILE_REDIS_SERVER (docs/performance.md, "Profiling").
 * A C function called from Lua (redis.call, string.format, cjson.encode) counts as one instruction:
 * read the figures beside profile:futures' callgrind counts, which weigh the C side.
 *
 * Runs bench:futures' flow: BENCH-sized resting orders (PROFILE_RESTING, 20000) then crossing ones
 * (PROFILE_CROSSING, 10000), PROFILE_GROUP (4) per createFuturesOrders call, each phase sampled on
 * its own; prints per phase the top lines (self) and the top functions (inclusive: a sample counts
 * once for every function on its stack), with the include file and line they sit at.
 *
 * Env: PROFILE_REDIS_SERVER (required), PROFILE_EVERY (97), PROFILE_TOP (40), PROFILE_RESTING,
 * PROFILE_CROSSING, PROFILE_GROUP.
 */
import { resolve } from 'node:path';
import Redis from 'ioredis';
import { loadConfig } from '../../src/platform/config/env';
import { createLogger } from '../../src/platform/config/logger';
import { buildLuaLibrary } from '../../src/platform/redis/lua-loader';
import { createContext } from '../../src/transport/context';
import type { CreateFuturesInput } from '../../src/futures/futures-engine';
import { seedMarkets } from '../../src/markets/market-seeder';
import { envInt, runBench } from './lib/deadline';
import { placeAll } from './lib/callgrind';
import { futuresFlow } from './lib/futures-flow';
import { startBenchRedis } from './lib/redis-server';

const RESTING = envInt('PROFILE_RESTING', 20_000);
const CROSSING = envInt('PROFILE_CROSSING', 10_000);
const GROUP = envInt('PROFILE_GROUP', 4);
const EVERY = envInt('PROFILE_EVERY', 97);
const TOP = envInt('PROFILE_TOP', 40);
const SCRIPT = 'createFuturesOrders';

// The sampler, at the library's top level: a count hook that adds one to the running line (self)
// and to every function on the stack once (inclusive, keyed by the line that defines it).
const PROFILER = `
local PROF = { on = false, lines = {}, funcs = {} }
local function profHook()
  local dbg = debug
  local info = dbg.getinfo(2, 'Sl')
  if not info then return end
  local lines, funcs = PROF.lines, PROF.funcs
  lines[info.currentline] = (lines[info.currentline] or 0) + 1
  local seen, lvl = {}, 2
  while true do
    local f = dbg.getinfo(lvl, 'S')
    if not f then break end
    local d = f.linedefined
    if not seen[d] then
      seen[d] = true
      funcs[d] = (funcs[d] or 0) + 1
    end
    lvl = lvl + 1
  end
  -- Lua 5.1 counts the hook's own instructions against the next sample: re-armed, the count starts
  -- again from here, so every sample stands for EVERY instructions of the script
  dbg.sethook(profHook, '', ${EVERY})
end
redis.register_function('profReset', function()
  PROF.lines, PROF.funcs = {}, {}
  return 1
end)
redis.register_function('profDump', function()
  local out = {}
  for l, c in pairs(PROF.lines) do out[#out + 1] = 'L' .. l .. ':' .. c end
  for l, c in pairs(PROF.funcs) do out[#out + 1] = 'F' .. l .. ':' .. c end
  return out
end)
`;

/** The library with the sampler, and the script's body run under the hook. */
function profiledLibrary(): { code: string; name: string } {
  const lib = buildLuaLibrary();
  const reg = `redis.register_function('${lib.functionName(SCRIPT)}', body)`;
  const at = lib.code.indexOf(reg);
  if (at < 0) throw new Error(`no registration of ${SCRIPT} in the library`);
  const start = lib.code.lastIndexOf('local body = function(KEYS, ARGV)', at);
  const wrapped =
    lib.code.slice(0, start) +
    'local body0 = function(KEYS, ARGV)' +
    lib.code.slice(start + 'local body = function(KEYS, ARGV)'.length, at) +
    `local body = function(KEYS, ARGV)\n  debug.sethook(profHook, '', ${EVERY})\n  local r = body0(KEYS, ARGV)\n  debug.sethook()\n  return r\nend\n` +
    lib.code.slice(at);
  // the sampler goes after the shebang line, ahead of everything
  const nl = wrapped.indexOf('\n');
  return { code: wrapped.slice(0, nl + 1) + PROFILER + wrapped.slice(nl + 1), name: lib.name };
}

/** Library line -> "file:line text": the include headers (`-- includes/x.lua`) mark each file's start. */
function lineMap(code: string): (line: number) => string {
  const lines = code.split('\n');
  const where: string[] = [];
  let file = 'library';
  let base = 0;
  lines.forEach((text, i) => {
    const m = /^-- ((?:includes\/)\S+\.lua)$/.exec(text);
    if (m) {
      file = m[1];
      base = i + 1;
    } else if (text === 'do') {
      file = 'script';
      base = i + 1;
    }
    where[i + 1] = `${file}:${i + 1 - base} ${text.trim().slice(0, 90)}`;
  });
  return (line) => where[line] ?? `?${line}`;
}

async function main(): Promise<void> {
  const server = process.env.PROFILE_REDIS_SERVER;
  if (!server) throw new Error('PROFILE_REDIS_SERVER: a redis-server whose functions keep `debug` (header)');
  const bench = await startBenchRedis({ binary: server, allowEnvUrl: false });
  const url = bench.url;
  try {
    const config = loadConfig({
      REDIS_URL: url, JWT_SECRET: 'profile-secret-0123456789abcdef', KEY_PREFIX: 'prof', LOG_LEVEL: 'silent',
      MARKETS_FILE: resolve(__dirname, '../../config/markets.json'), REDIS_COMMAND_TIMEOUT_MS: '60000',
    });
    const ctx = await createContext(config, createLogger('silent'));
    await seedMarkets(config.marketsFile, ctx.markets.service, ctx.log);
    const lib = profiledLibrary();
    const redis = ctx.redis as Redis;
    // same library name and function names: the app's calls now run under the sampler
    await redis.call('FUNCTION', 'LOAD', 'REPLACE', lib.code);
    const where = lineMap(lib.code.split('\n').slice(1).join('\n').replace(/^/, '\n'));
    const { resting, crossing } = await futuresFlow(ctx, RESTING, CROSSING);

    const phase = async (name: string, items: CreateFuturesInput[]) => {
      if (items.length === 0) return;
      await redis.call('FCALL', 'profReset', '0');
      await placeAll(redis, items, GROUP, (p, orders) => ctx.futures.engine.queueCreate(p, orders));
      const dump = (await redis.call('FCALL', 'profDump', '0')) as string[];
      const lines: [number, number][] = [];
      const funcs: [number, number][] = [];
      for (const d of dump) {
        const [k, c] = d.slice(1).split(':').map(Number);
        (d[0] === 'L' ? lines : funcs).push([k, c]);
      }
      const total = lines.reduce((s, [, c]) => s + c, 0);
      const perOrder = (c: number) => Math.round((c * EVERY) / items.length).toLocaleString('en-US');
      console.log(`\n== ${name}: ~${perOrder(total)} VM instructions per order (${items.length} orders, ${GROUP} per call)`);
      console.log('-- functions, inclusive (VM instructions per order):');
      for (const [l, c] of funcs.sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(`${perOrder(c).padStart(8)}  ${where(l)}`);
      console.log('-- lines, self:');
      for (const [l, c] of lines.sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(`${perOrder(c).padStart(8)}  ${where(l)}`);
    };
    await phase('resting', resting);
    await phase('crossing', crossing);
    await ctx.close();
  } finally {
    await bench.stop();
  }
}

runBench(main);
