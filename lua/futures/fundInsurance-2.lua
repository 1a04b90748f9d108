--[[
  An operator's deposit into one engine shard's insurance fund (each shard's fund is its own: a
  liquidation on a shard draws on that shard's fund alone). The money enters the system here, so it
  counts in the shard's deposits, the right-hand side of the reconciler's invariant.

  Input:
    KEYS[1] the shard's insurance fund (hash by currency)   KEYS[2] the shard's deposits (hash by currency)
    ARGV[1] currency code   ARGV[2] amount, minor units (> 0)
  Output:
    {'OK', the fund's balance after}; {'ERR', 'BALANCE_TOO_LARGE', ''} past 2^53 (nothing changed)
]]
--- @include "includes/safeInt"
--- @include "includes/fmt"
local rcall = redis.call
local after = tonumber(rcall('HGET', KEYS[1], ARGV[1]) or '0') + tonumber(ARGV[2])
if not isSafe(after) then return { 'ERR', 'BALANCE_TOO_LARGE', '' } end
rcall('HSET', KEYS[1], ARGV[1], fmt(after))
rcall('HINCRBY', KEYS[2], ARGV[1], ARGV[2])
return { 'OK', fmt(after) }
