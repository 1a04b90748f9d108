import { resolveIncludes, LUA_DIR } from '../../src/platform/redis/lua-loader';
import { testContext } from '../support/harness';
import { allKeys } from '../../src/platform/redis/scan-keys';

/**
 * recordTrades builds each record by one concatenation and checks trimming once per second of trade
 * time. What it leaves must be what the former code left (frozen below): same records, time index
 * and user indices, over random commands (several trades, self-trades, a sweep of 2,100 fills,
 * missing fields, clocks behind), and trimmed alike whenever a command starts a new second.
 */
const BEFORE = `local FIELDS_SPOT = { 'id', 'ts', 'p', 'q', 'side', 'tk', 'mk', 'tu', 'mu', 'tf', 'mf' }
local FIELDS_FUTURES = { 'tpnl', 'mpnl', 'tpos', 'mpos', 'tl', 'ml', 'tt' }
local function recordTradesBefore(ctx)
  local trades = {}
  for _, ev in ipairs(ctx.events) do
    if ev.e == 'trade' then trades[#trades + 1] = ev end
  end
  if #trades == 0 then return end
  local P, pair = ctx.P, ctx.pair
  local kind = 'spot'
  if ctx.fut then kind = 'futures' end
  local recKey, timeKey, retentionKey
  local given = ctx.keys and ctx.keys.history
  if given then
    recKey, timeKey, retentionKey = given.records, given.times, given.retention
  else
    recKey, timeKey = P .. 'trades:' .. kind .. ':' .. pair, P .. 'tradetimes:' .. kind .. ':' .. pair
    retentionKey = P .. 'config:tradeHistoryMs'
  end

  local ts = tonumber(ctx.ts)
  local last = redis.call('ZRANGE', timeKey, '-1', '-1', 'WITHSCORES')
  if #last > 0 and tonumber(last[2]) > ts then ts = tonumber(last[2]) end
  local tsText = string.format('%d', ts)
  redis.call('ZADD', timeKey, tsText, string.format('%016d', tonumber(trades[1].id)))

  local userPrefix = P .. 'utrades:' .. kind .. ':' .. pair .. ':'
  local users = {}
  for _, t in ipairs(trades) do
    t.ts = tsText
    local parts = {}
    for i, f in ipairs(FIELDS_SPOT) do parts[i] = t[f] or '' end
    if kind == 'futures' then
      for _, f in ipairs(FIELDS_FUTURES) do parts[#parts + 1] = t[f] or '' end
    end
    redis.call('ZADD', recKey, t.id, table.concat(parts, '|'))
    redis.call('ZADD', userPrefix .. t.tu, t.id, t.id .. ':t')
    redis.call('ZADD', userPrefix .. t.mu, t.id, t.id .. ':m')
    users[t.tu] = true
    users[t.mu] = true
    t.ts = nil
  end

  -- trim by time, only when the oldest command is past the retention
  local keepMs = tonumber(redis.call('GET', retentionKey) or TRADE_HISTORY_DEFAULT_MS)
  local cutoff = ts - keepMs
  local oldest = redis.call('ZRANGE', timeKey, '0', '0', 'WITHSCORES')
  if tonumber(oldest[2]) >= cutoff then return end
  local kept = redis.call('ZRANGEBYSCORE', timeKey, string.format('%d', cutoff), '+inf', 'LIMIT', '0', '1')
  local firstKept = '(' .. string.format('%d', tonumber(kept[1]))
  redis.call('ZREMRANGEBYSCORE', timeKey, '-inf', '(' .. string.format('%d', cutoff))
  redis.call('ZREMRANGEBYSCORE', recKey, '-inf', firstKept)
  for user in pairs(users) do
    redis.call('ZREMRANGEBYSCORE', userPrefix .. user, '-inf', firstKept)
  end
end
`;

const SCRIPT = `--- @include "includes/tradeHistory"
${BEFORE}
local ctx = { P = ARGV[1], pair = ARGV[2], ts = ARGV[4], events = cjson.decode(ARGV[5]) }
if ARGV[3] == 'futures' then ctx.fut = {} end
if ARGV[6] ~= 'before' then
  -- the settlements hand recordTrades their fields as one text (includes/matchOrder's ev.tail)
  for _, ev in ipairs(ctx.events) do
    if ev.e == 'trade' then
      local parts = { ev.tf, ev.mf }
      if ctx.fut then
        for _, f in ipairs(FIELDS_FUTURES) do parts[#parts + 1] = ev[f] or '' end
      end
      ev.tail = table.concat(parts, '|')
    end
  end
end
if ARGV[6] == 'before' then recordTradesBefore(ctx) else recordTrades(ctx) end
return 'OK'`;

/** A history's keys under P: records, time index, user indices (user entries below the oldest record left out: reads never show them). */
async function dump(redis: Awaited<ReturnType<typeof testContext>>['redis'], P: string): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  const keys = (await allKeys(redis, `${P}*trades*`)).sort();
  const records = keys.find((k) => k.startsWith(`${P}trades:`));
  const oldest = records ? Number((await redis.zrange(records, '0', '0', 'WITHSCORES'))[1]) : 0;
  for (const key of keys) {
    const raw = await redis.zrange(key, '0', '-1', 'WITHSCORES');
    const kept: string[] = [];
    for (let i = 0; i < raw.length; i += 2) {
      if (!key.startsWith(`${P}utrades:`) || Number(raw[i + 1]) >= oldest) kept.push(raw[i], raw[i + 1]);
    }
    out[key.slice(P.length)] = kept;
  }
  return out;
}

/** Deterministic pseudo-random numbers (mulberry32). */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

it('records, indexes and trims a command\'s trades as the former code did', async () => {
  const ctx = await testContext();
  try {
    const lua = resolveIncludes(LUA_DIR, SCRIPT, 'record-trades-probe.lua');
    const r = rng(10);
    const pick = (n: number) => Math.floor(r() * n);
    for (const kind of ['spot', 'futures'] as const) {
      const prefixes = [`thA${kind}:`, `thB${kind}:`];
      for (const P of prefixes) await ctx.redis.set(`${P}config:tradeHistoryMs`, '5000');
      let tradeId = 1;
      let ts = 1_700_000_000_000;
      let last: number | undefined;
      for (let cmd = 0; cmd < 60; cmd++) {
        // mostly a few trades, once a long sweep; clocks sometimes behind
        const n = cmd === 30 ? 2100 : 1 + pick(4);
        ts += cmd % 7 === 3 ? -1500 : pick(3) * 900;
        const events: Record<string, string>[] = [{ e: 'order', id: String(cmd) }];
        for (let i = 0; i < n; i++) {
          const tu = `u${pick(6)}`;
          const mu = pick(5) === 0 ? tu : `u${pick(6)}`;
          const ev: Record<string, string> = {
            e: 'trade', id: String(tradeId++), p: String(1000 + pick(50)), q: String(1 + pick(9)), side: pick(2) ? 'buy' : 'sell',
            tk: String(900 + pick(99)), mk: String(800 + pick(99)), tu, mu, tf: String(pick(30)), mf: String(pick(30)),
          };
          if (kind === 'futures') {
            Object.assign(ev, { tpnl: String(pick(200) - 100), mpnl: '0', tpos: String(pick(99)), mpos: 'fund', tl: '1', ml: '0', tt: String(2 + pick(2)) });
            if (pick(4) === 0) delete ev.tpnl; // a missing field is an empty one
          }
          events.push(ev);
          if (pick(3) === 0) events.push({ e: 'book', side: 'bids', p: '1', q: '0' });
        }
        for (const [i, P] of prefixes.entries()) {
          expect(await ctx.redis.eval(lua, 0, P, 'BTC_USDT', kind, String(ts), JSON.stringify(events), i === 0 ? 'before' : 'now')).toBe('OK');
        }
        const [before, now] = [await dump(ctx.redis, prefixes[0]), await dump(ctx.redis, prefixes[1])];
        const eff = last === undefined ? ts : Math.max(ts, last);
        if (last === undefined || Math.floor(eff / 1000) !== Math.floor(last / 1000)) {
          // a command that starts a second checks trimming: the same history
          expect({ kind, cmd, now }).toEqual({ kind, cmd, now: before });
        } else {
          // within the same second: what the per-trade writes kept, and possibly older entries not trimmed yet
          for (const [key, entries] of Object.entries(before)) {
            const kept = now[key];
            for (let i = 0; i < entries.length; i += 2) expect([kind, cmd, key, kept.includes(entries[i])]).toEqual([kind, cmd, key, true]);
          }
        }
        last = eff;
      }
      // the run did trim (5 s retention over about a minute of trade time)
      const kept = await ctx.redis.zcard(`${prefixes[1]}trades:${kind}:BTC_USDT`);
      expect([kind, kept > 0 && kept < tradeId - 2100]).toEqual([kind, true]);
    }
  } finally {
    await ctx.cleanup();
  }
}, 60_000);

it('keeps one time index entry per time, the first command\'s, and every time bound reads the same ids', async () => {
  const ctx = await testContext();
  try {
    const lua = resolveIncludes(LUA_DIR, SCRIPT, 'record-trades-probe.lua');
    const P = ctx.keys.engine;
    const T = 1_700_000_000_000;
    // command times as sent; the fourth is behind the third and is raised to it
    const commands = [{ ts: T, ids: [1, 2] }, { ts: T, ids: [3] }, { ts: T + 5, ids: [4] }, { ts: T + 2, ids: [5] }, { ts: T + 9, ids: [6] }];
    const timeOf = new Map<number, number>();
    let last = 0;
    for (const c of commands) {
      const events = c.ids.map((id) => ({ e: 'trade', id: String(id), p: '1', q: '1', side: 'buy', tk: '1', mk: '2', tu: 'a', mu: 'b', tf: '0', mf: '0' }));
      expect(await ctx.redis.eval(lua, 0, P, 'BTC_USDT', 'spot', String(c.ts), JSON.stringify(events), 'now')).toBe('OK');
      last = Math.max(last, c.ts);
      for (const id of c.ids) timeOf.set(id, last);
    }
    expect(await ctx.redis.zrange(ctx.keys.tradeTimes('spot', 'BTC_USDT'), '0', '-1', 'WITHSCORES')).toEqual([
      '0000000000000001', String(T), '0000000000000004', String(T + 5), '0000000000000006', String(T + 9),
    ]);
    for (let from = T - 1; from <= T + 10; from++) {
      for (let to = from; to <= T + 10; to++) {
        const r = await ctx.marketData.history.idRange('spot', 'BTC_USDT', from, to);
        const got = [...timeOf.keys()].filter((id) => id >= r.min && id <= r.max);
        const want = [...timeOf.keys()].filter((id) => (timeOf.get(id) as number) >= from && (timeOf.get(id) as number) <= to);
        expect([from - T, to - T, got]).toEqual([from - T, to - T, want]);
      }
    }
  } finally {
    await ctx.cleanup();
  }
});
