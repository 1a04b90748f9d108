--[[
  Folds the trades of one market stream entry into the market's candles of every period, once:
  an entry already applied changes nothing, so a replayed job or a re-dispatched entry is harmless.
  Applied entries are remembered for a window behind the newest one; an entry older than that
  window is taken as applied (queues run close to stream order, so only a replay can be that late).
  Open and close are the prices of the lowest and highest trade id in the candle, so entries
  applied out of order (several workers) still give the right candle.

  Input:
    KEYS[1] entries applied (zset: stream entry id, score = entry ms)
    KEYS[2] candles (hash: `<period>:<open ms>` -> JSON {o, c, h, l, oi, ci, v, q, n})
    KEYS[3] candle update stream
    ARGV[1] stream entry id         ARGV[4] candle update stream MAXLEN
    ARGV[2] entry timestamp, ms     ARGV[5] number of periods, P
    ARGV[3] window of remembered entries, ms
    ARGV[6 .. 5+P] periods, seconds
    then per trade, four values: trade id, price ticks, quantity lots, ticks x lots (decimal string)
  Output:
    0  the entry was applied before, or is older than the window: nothing changed
    1  applied
  Events: one entry on KEYS[3], field `ev`: JSON array of the candles this changed, each
    {period, t (open ms), o, c, h, l, v, q, n}, integers as decimal strings.
]]
local rcall = redis.call
--- @include "includes/addDecimal"
--- @include "includes/fmt"

local appliedKey, candlesKey, updatesKey = KEYS[1], KEYS[2], KEYS[3]
local entryId, ts, window, maxlen = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local nPeriods = tonumber(ARGV[5])

if rcall('ZSCORE', appliedKey, entryId) then return 0 end
local newest = rcall('ZRANGE', appliedKey, -1, -1, 'WITHSCORES')
local forgetBefore = ts - window
if #newest > 0 then
  forgetBefore = math.max(forgetBefore, tonumber(newest[2]) - window)
  if ts < forgetBefore then return 0 end
end

local updates = {}
for pi = 1, nPeriods do
  local period = tonumber(ARGV[5 + pi])
  local ms = period * 1000
  local open = ts - ts % ms
  local field = fmt(period) .. ':' .. fmt(open)
  local raw = rcall('HGET', candlesKey, field)
  local c
  if raw then c = cjson.decode(raw) end
  for t = 6 + nPeriods, #ARGV, 4 do
    local id, p, lots, notional = tonumber(ARGV[t]), tonumber(ARGV[t + 1]), ARGV[t + 2], ARGV[t + 3]
    if not c then
      c = { o = ARGV[t + 1], c = ARGV[t + 1], h = ARGV[t + 1], l = ARGV[t + 1],
            oi = ARGV[t], ci = ARGV[t], v = '0', q = '0', n = '0' }
    end
    if id < tonumber(c.oi) then c.o = ARGV[t + 1]; c.oi = ARGV[t] end
    if id > tonumber(c.ci) then c.c = ARGV[t + 1]; c.ci = ARGV[t] end
    if p > tonumber(c.h) then c.h = ARGV[t + 1] end
    if p < tonumber(c.l) then c.l = ARGV[t + 1] end
    c.v = addDecimal(c.v, lots)
    c.q = addDecimal(c.q, notional)
    c.n = fmt(tonumber(c.n) + 1)
  end
  rcall('HSET', candlesKey, field, cjson.encode(c))
  updates[#updates + 1] = { period = fmt(period), t = fmt(open), o = c.o, c = c.c, h = c.h, l = c.l,
                            v = c.v, q = c.q, n = c.n }
end

rcall('ZADD', appliedKey, ts, entryId)
rcall('ZREMRANGEBYSCORE', appliedKey, '-inf', '(' .. fmt(forgetBefore))
rcall('XADD', updatesKey, 'MAXLEN', '~', maxlen, '*', 'ts', fmt(ts), 'ev', cjson.encode(updates))
return 1
