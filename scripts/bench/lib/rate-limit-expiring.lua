--[[
  bench:shards' limiter mode, the layout before 2026-11-28 16:00 (lua/platform/consumeRateLimit-1.lua
  replaced it): two counters that live for their windows, written to the AOF and the replicas like
  any write, a window ending by the key's expiry (a DEL in the AOF). Kept here only as that mode's
  baseline; not loaded by the service.

  Input:
    KEYS[1] the steady bucket (counter; lives ARGV[2] seconds from its first request)
    KEYS[2] the burst bucket (counter; lives ARGV[4] seconds from its first request)
    ARGV[1] steady points per window   ARGV[2] steady window, seconds
    ARGV[3] burst points per window    ARGV[4] burst window, seconds
  Output:
    {allowed (1|0), remaining, resetMs, retryMs}
]]
local rcall = redis.call
local steadyKey = KEYS[1]
local burstKey = KEYS[2]
local steadyPoints = tonumber(ARGV[1])
local steadySeconds = tonumber(ARGV[2])
local burstPoints = tonumber(ARGV[3])
local burstSeconds = tonumber(ARGV[4])

-- one more request in a bucket's window: its count and the ms until the window ends
local function take(key, seconds)
  local used = rcall('INCR', key)
  if used == 1 then
    rcall('EXPIRE', key, seconds)
    return used, seconds * 1000
  end
  local ttl = rcall('PTTL', key)
  if ttl < 0 then
    -- a counter left without a TTL (written by hand): the window starts now
    rcall('EXPIRE', key, seconds)
    ttl = seconds * 1000
  end
  return used, ttl
end

local used, ttl = take(steadyKey, steadySeconds)
if used <= steadyPoints then
  local burstUsed = tonumber(rcall('GET', burstKey) or '0')
  local burstTtl = 0
  if burstUsed > 0 then burstTtl = math.max(rcall('PTTL', burstKey), 0) end
  return { 1, steadyPoints - used + math.max(burstPoints - burstUsed, 0), math.max(ttl, burstTtl), 0 }
end
local burstUsed, burstTtl = take(burstKey, burstSeconds)
if burstUsed <= burstPoints then
  return { 1, burstPoints - burstUsed, math.max(ttl, burstTtl), 0 }
end
-- the steady window turns first: the next request is allowed then
return { 0, 0, math.max(ttl, burstTtl), math.min(ttl, burstTtl) }
