/**
 * The Lua line sampler shared by profile:futures-lines and profile:spot-lines: a count hook over one
 * script of the library, every `every` VM instructions (deterministic: the same flow samples the same
 * lines, whatever else the box runs). Needs a redis-server whose functions keep `debug`
 * (docs/performance.md, "Profiling tools").
 */
import type Redis from 'ioredis';
import { buildLuaLibrary } from '../../../src/platform/redis/lua-loader';

// The sampler, at the library's top level: a count hook that adds one to the running line (self)
// and to every function on the stack once (inclusive, keyed by the line that defines it). One
// top-level local (the hook a field of PROF): the library is near Lua 5.1's 200 (lib/lua-loader).
const profiler = (every: number) => `
local PROF = { on = false, lines = {}, funcs = {} }
function PROF.hook()
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
  dbg.sethook(PROF.hook, '', ${every})
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

/** The library with the sampler, and `script`'s body run under the hook. */
function profiledLibrary(script: string, every: number, luaDir?: string): { code: string; name: string } {
  const lib = buildLuaLibrary(luaDir);
  const reg = `redis.register_function('${lib.functionName(script)}', body)`;
  const at = lib.code.indexOf(reg);
  if (at < 0) throw new Error(`no registration of ${script} in the library`);
  const start = lib.code.lastIndexOf('local body = function(KEYS, ARGV)', at);
  const wrapped =
    lib.code.slice(0, start) +
    // the script's own body a field of PROF, not a local more (the library is near 200)
    'PROF.body0 = function(KEYS, ARGV)' +
    lib.code.slice(start + 'local body = function(KEYS, ARGV)'.length, at) +
    `local body = function(KEYS, ARGV)\n  debug.sethook(PROF.hook, '', ${every})\n  local r = PROF.body0(KEYS, ARGV)\n  debug.sethook()\n  return r\nend\n` +
    lib.code.slice(at);
  // the sampler goes after the shebang line, ahead of everything
  const nl = wrapped.indexOf('\n');
  return { code: wrapped.slice(0, nl + 1) + profiler(every) + wrapped.slice(nl + 1), name: lib.name };
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

/**
 * Loads the sampled library in place of the app's (same library and function names: the app's
 * calls now run under the sampler) and returns a phase runner: `place` runs the phase's orders,
 * then the top lines (self) and functions (inclusive) print per order.
 */
export async function lineSampler(redis: Redis, opts: { script: string; every: number; top: number; luaDir?: string }) {
  const lib = profiledLibrary(opts.script, opts.every, opts.luaDir);
  await redis.call('FUNCTION', 'LOAD', 'REPLACE', lib.code);
  const where = lineMap(lib.code.split('\n').slice(1).join('\n').replace(/^/, '\n'));
  return async (name: string, orders: number, group: number, place: () => Promise<void>): Promise<void> => {
    if (orders === 0) return;
    await redis.call('FCALL', 'profReset', '0');
    await place();
    const dump = (await redis.call('FCALL', 'profDump', '0')) as string[];
    const lines: [number, number][] = [];
    const funcs: [number, number][] = [];
    for (const d of dump) {
      const [k, c] = d.slice(1).split(':').map(Number);
      (d[0] === 'L' ? lines : funcs).push([k, c]);
    }
    const total = lines.reduce((s, [, c]) => s + c, 0);
    const perOrder = (c: number) => Math.round((c * opts.every) / orders).toLocaleString('en-US');
    console.log(`\n== ${name}: ~${perOrder(total)} VM instructions per order (${orders} orders, ${group} per call)`);
    console.log('-- functions, inclusive (VM instructions per order):');
    for (const [l, c] of funcs.sort((a, b) => b[1] - a[1]).slice(0, opts.top)) console.log(`${perOrder(c).padStart(8)}  ${where(l)}`);
    console.log('-- lines, self:');
    for (const [l, c] of lines.sort((a, b) => b[1] - a[1]).slice(0, opts.top)) console.log(`${perOrder(c).padStart(8)}  ${where(l)}`);
  };
}
