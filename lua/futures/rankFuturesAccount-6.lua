--[[
  Lists a futures account in the rankings with its base equity, scored at once from its aggregates
  (includes/futures/accountRank), or takes it out (it keeps its last score in `all`). Idempotent.
  Listing is what makes an account a master's on the board: an account not tracked yet (its hash
  without `stats` = '1') is made tracked here, its aggregates rebuilt from its orders in this step
  (includes/futures/accountStats, fStatsTrack), so they are exact whatever it traded before.

  Input:
    KEYS[1] the ranked accounts (hash)   KEYS[2..6] the rankings by roi, pnl, days, dd, all (zsets)
    ARGV[1] engine key prefix   ARGV[2] account id
    ARGV[3] base equity, minor units ('' takes the account out)   ARGV[4] decimals of its currency
    ARGV[5] now, ms (the day of a rebuilt order without timestamps)
  Keys built while running (includes/keys, from ARGV[1]): when it tracks the account, the account's
    hash, its orders (zset), each order's hash, its aggregates, daily series and days.
  Output: {'OK'}
]]
--- @include "includes/futures/accountRank"
--- @include "includes/futures/accountStats"

local P, acct = ARGV[1], ARGV[2]
if ARGV[3] == '' then
  redis.call('HDEL', KEYS[1], acct)
  for i = 2, 5 do redis.call('ZREM', KEYS[i], fRankMember(acct)) end
else
  redis.call('HSET', KEYS[1], acct, ARGV[3] .. ':' .. ARGV[4])
  -- a rebuild re-scores the account itself
  if not fStatsTrack(P, acct, ARGV[5]) then fRankAfter(P, acct, nil) end
end
return { 'OK' }
