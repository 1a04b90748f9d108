--[[
  Stores a futures market's index and mark price for one second (the mark worker computes them:
  src/futures/prices/futures-price.service.ts) and adds that second's basis sample (futures impact
  mid − index, 0 while the book cannot fill the impact notional) to the last 30. Keyed by the second: a second already stored gets no second sample, and an older
  second than the one stored changes nothing, so any number of workers may run it. A mark or index
  that changed is announced on the market stream (the websocket ticker shows both).

  Input:
    KEYS[1] the market's mark (hash: p, index, sec, ts)   KEYS[2] its basis samples (list, newest first)
    KEYS[3] its index price   KEYS[4] the futures market event stream
    ARGV[1] second (ms / 1000, floored)   ARGV[3] basis sample, ticks, or '' for none   ARGV[5] timestamp, ms
    ARGV[2] index, ticks, or '' (none yet)   ARGV[4] mark, ticks                         ARGV[6] stream MAXLEN
  Output:
    {'OK', sampled (1|0)} or {'STALE', stored second}
  Events: mark {p, i} when the mark or the index changed.
]]
local rcall = redis.call
local sec = tonumber(ARGV[1])
local stored = tonumber(rcall('HGET', KEYS[1], 'sec') or '-1')
if sec < stored then return { 'STALE', tostring(stored) } end
local sampled = 0
if sec > stored and ARGV[3] ~= '' then
  rcall('LPUSH', KEYS[2], ARGV[3])
  rcall('LTRIM', KEYS[2], 0, 29)
  sampled = 1
end
if ARGV[2] ~= '' then rcall('SET', KEYS[3], ARGV[2]) end
local before = rcall('HMGET', KEYS[1], 'p', 'index')
rcall('HSET', KEYS[1], 'p', ARGV[4], 'index', ARGV[2], 'sec', ARGV[1], 'ts', ARGV[5])
if before[1] ~= ARGV[4] or before[2] ~= ARGV[2] then
  rcall('XADD', KEYS[4], 'MAXLEN', '~', ARGV[6], '*', 'ts', ARGV[5], 'ev',
    cjson.encode({ { e = 'mark', p = ARGV[4], i = ARGV[2] } }))
end
return { 'OK', tostring(sampled) }
