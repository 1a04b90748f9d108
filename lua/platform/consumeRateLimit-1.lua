--[[
  Takes one request of a user from the order rate limiter (src/transport/http/middleware/rate-limit.ts)
  in one command: the steady bucket first, the burst bucket when the steady one is used up, and,
  when the steady bucket allows it, the burst bucket's rest for the X-RateLimit-Remaining header.
  Each bucket is a fixed window that starts at its first request and counts refused requests too
  (rate-limiter-flexible's layout, which this replaced).

  Not replicated: redis.set_repl(redis.REPL_NONE) keeps the limiter's writes out of the AOF and off
  the replicas, so under `appendfsync always` a request costs no fsync for its limiter. The state is
  not money: a restart from the AOF or a failover forgets it, which only starts every user's windows
  afresh (docs/spot.md#rate-limit). For the same reason no window ends by a key's expiry (a lazy
  expiry inside a script is written to the AOF as a DEL whatever set_repl says): both windows'
  starts and counts sit in one value, the windows end by the server's clock (TIME: nothing here is
  replicated, so the call need not be deterministic, and every api process shares one clock), and
  the key itself lapses only after ARGV[5] ms without a request.

  Input:
    KEYS[1] the user's limiter state: "<steadyStartMs> <steadyUsed> <burstStartMs> <burstUsed>"
            (server clock; a burst start of 0: no burst window begun)
    ARGV[1] steady points per window   ARGV[2] steady window, ms
    ARGV[3] burst points per window    ARGV[4] burst window, ms
    ARGV[5] ms without a request after which the state goes (longer than both windows)
  Output:
    {allowed (1|0), remaining (steady and burst points left), resetMs (until both windows end),
     retryMs (until a refused caller may send again; 0 when allowed)}
]]
redis.set_repl(redis.REPL_NONE)
local rcall = redis.call
local stateKey = KEYS[1]
local steadyPoints = tonumber(ARGV[1])
local steadyMs = tonumber(ARGV[2])
local burstPoints = tonumber(ARGV[3])
local burstMs = tonumber(ARGV[4])
local idleMs = ARGV[5]

local time = rcall('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local steadyStart, steadyUsed, burstStart, burstUsed = 0, 0, 0, 0
local state = rcall('GET', stateKey)
if state then
  local a, b, c, d = string.match(state, '^(%d+) (%d+) (%d+) (%d+)$')
  if a then
    steadyStart, steadyUsed, burstStart, burstUsed = tonumber(a), tonumber(b), tonumber(c), tonumber(d)
  end
end
-- a window that has ended is empty; the steady one restarts with this request
if now >= steadyStart + steadyMs then steadyStart, steadyUsed = now, 0 end
if burstStart > 0 and now >= burstStart + burstMs then burstStart, burstUsed = 0, 0 end

local steadyTtl = steadyStart + steadyMs - now
local burstTtl = 0
local reply
steadyUsed = steadyUsed + 1
if steadyUsed <= steadyPoints then
  if burstUsed > 0 then burstTtl = burstStart + burstMs - now end
  reply = { 1, steadyPoints - steadyUsed + math.max(burstPoints - burstUsed, 0), math.max(steadyTtl, burstTtl), 0 }
else
  if burstStart == 0 then burstStart = now end
  burstUsed = burstUsed + 1
  burstTtl = burstStart + burstMs - now
  if burstUsed <= burstPoints then
    reply = { 1, burstPoints - burstUsed, math.max(steadyTtl, burstTtl), 0 }
  else
    -- the window that ends first lets the next request in
    reply = { 0, 0, math.max(steadyTtl, burstTtl), math.min(steadyTtl, burstTtl) }
  end
end
rcall('SET', stateKey, string.format('%d %d %d %d', steadyStart, steadyUsed, burstStart, burstUsed), 'PX', idleMs)
return reply
