--[[
  Rebuilds one futures account's trading aggregates from its orders (includes/futures/accountStats,
  fStatsRebuild): the backfill of a deployment, and a repair. A tracked account (`stats` = '1' in
  its hash) gets each order's part as it stands now, summed, then its rankings, if it is ranked; an
  account of a copy subscription (`copy` = '1', from before the flag) or one ARGV[4] asks for is
  made tracked first. Any other account keeps no aggregates: its keys are deleted. Idempotent,
  O(orders of the account); commands after it go on from exactly this sum.

  Input:
    KEYS[1] the account's finished opening orders (zset by id; with its open index, built from
      ARGV[1] in the same slot, they are all its opening orders: includes/futures/accountIndex)   KEYS[2] its aggregates (hash)   KEYS[3] its daily series (hash)
    KEYS[4] its days' reference counts (hash)
    ARGV[1] engine key prefix   ARGV[2] account id   ARGV[3] now, ms   ARGV[4] '1': track the account
  Keys built while running (includes/keys, from ARGV[1]): the account's hash, each order's hash, the
    rankings (the same names as KEYS).
  Output: {'OK', orders read, '1' tracked | '0' not (its aggregates deleted)}
]]
--- @include "includes/keys"
--- @include "includes/fmt"
--- @include "includes/futures/accountStats"

local P, acct = ARGV[1], ARGV[2]
local key = futuresAccountKey(P, acct)
local a = redis.call('HMGET', key, 'id', 'stats', 'copy')
if a[1] and (a[2] == '1' or a[3] == '1' or ARGV[4] == '1') then
  if a[2] ~= '1' then redis.call('HSET', key, 'stats', '1') end
  return { 'OK', fmt(fStatsRebuild(P, acct, ARGV[3])), '1' }
end
redis.call('DEL', KEYS[2], KEYS[3], KEYS[4])
return { 'OK', '0', '0' }
