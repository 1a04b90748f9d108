--[[
  Lists a futures account in the rankings with its base equity, scored at once from its aggregates
  (includes/futures/accountRank), or takes it out (it keeps its last score in `all`). Idempotent.

  Input:
    KEYS[1] the ranked accounts (hash)   KEYS[2..6] the rankings by roi, pnl, days, dd, all (zsets)
    ARGV[1] engine key prefix   ARGV[2] account id
    ARGV[3] base equity, minor units ('' takes the account out)   ARGV[4] decimals of its currency
  Output: {'OK'}
]]
--- @include "includes/futures/accountRank"

local P, acct = ARGV[1], ARGV[2]
if ARGV[3] == '' then
  redis.call('HDEL', KEYS[1], acct)
  for i = 2, 5 do redis.call('ZREM', KEYS[i], fRankMember(acct)) end
else
  redis.call('HSET', KEYS[1], acct, ARGV[3] .. ':' .. ARGV[4])
  fRankAfter(P, acct, nil)
end
return { 'OK' }
