--[[
  Credits a user's wallet (admin deposit) on the user's home shard, and counts it in the shard's
  deposits: the right-hand side of the reconciler's invariant.

  Input:
    KEYS[1] the user's available balances (hash by currency)
    KEYS[2] the shard's deposits (hash by currency)
    ARGV[1] currency code   ARGV[2] amount, minor units (> 0)
  Output:
    {'OK', new available balance}; {'ERR', 'BALANCE_TOO_LARGE', ''} past 2^53 (nothing changed)
]]
--- @include "includes/safeInt"
--- @include "includes/fmt"
local rcall = redis.call
local current = tonumber(rcall('HGET', KEYS[1], ARGV[1]) or '0')
local after = current + tonumber(ARGV[2])
if not isSafe(after) then return { 'ERR', 'BALANCE_TOO_LARGE', '' } end
rcall('HSET', KEYS[1], ARGV[1], fmt(after))
rcall('HINCRBY', KEYS[2], ARGV[1], ARGV[2])
return { 'OK', fmt(after) }
