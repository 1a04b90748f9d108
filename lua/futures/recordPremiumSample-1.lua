--[[
  Adds one premium index sample (docs/futures.md, funding) to a futures market's round in progress:
  pn = samples so far, pw = Σ k·P_k (k = 1..pn, ppb), the weights of the time-weighted mean.
  Keyed by the sample slot (ms / sample period, floored): a slot already sampled changes nothing,
  so any number of workers may run it. settleFuturesFunding reads and clears pn and pw.

  Input:
    KEYS[1] the market's funding state (hash: round, rate, mark, ts, pn, pw, pslot)
    ARGV[1] slot number   ARGV[2] premium sample, ppb (signed integer)
  Output:
    {'OK', pn} or {'SKIP', pn}
]]
local rcall = redis.call
local slot = tonumber(ARGV[1])
local last = tonumber(rcall('HGET', KEYS[1], 'pslot') or '-1')
local n = tonumber(rcall('HGET', KEYS[1], 'pn') or '0')
if slot <= last then return { 'SKIP', tostring(n) } end
local w = tonumber(rcall('HGET', KEYS[1], 'pw') or '0')
n = n + 1
w = w + n * tonumber(ARGV[2])
rcall('HSET', KEYS[1], 'pn', tostring(n), 'pw', string.format('%.0f', w), 'pslot', ARGV[1])
return { 'OK', tostring(n) }
