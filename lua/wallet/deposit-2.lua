--[[
  Credits a user's wallet (admin deposit).

  Input:
    KEYS[1] the user's available balances (hash by currency)
    KEYS[2] the shard's user event stream
    ARGV[1] currency code   ARGV[2] amount, minor units (> 0)
    ARGV[3] user id         ARGV[4] timestamp, ms   ARGV[5] stream MAXLEN
  Output:
    {'OK', new available balance}; {'ERR', 'BALANCE_TOO_LARGE', ''} past 2^53 (nothing changed)
  Events: one entry on KEYS[2]: wallet (deposit) (includes/userEvents)
]]
--- @include "includes/safeInt"
--- @include "includes/fmt"
--- @include "includes/userEvents"
local rcall = redis.call
local current = tonumber(rcall('HGET', KEYS[1], ARGV[1]) or '0')
local after = current + tonumber(ARGV[2])
if not isSafe(after) then return { 'ERR', 'BALANCE_TOO_LARGE', '' } end
rcall('HSET', KEYS[1], ARGV[1], fmt(after))
userEvents.append(KEYS[2], ARGV[4], ARGV[5], { userEvents.wallet(ARGV[3], ARGV[1], 'deposit') })
return { 'OK', fmt(after) }
