--[[
  Rebuilds one futures account's trading aggregates from its orders (includes/futures/accountStats):
  the backfill of a deployment whose orders predate the aggregates, and a repair. Each order's part
  as it stands now, summed; then the account's rankings, if it is ranked. Idempotent, O(orders of
  the account); commands after it go on from exactly this sum.

  Input:
    KEYS[1] the account's opening orders (zset by id)   KEYS[2] its aggregates (hash)   KEYS[3] its daily series (hash)
    KEYS[4] its days' reference counts (hash)
    ARGV[1] engine key prefix   ARGV[2] account id   ARGV[3] now, ms
  Keys built while running (includes/keys, from ARGV[1]): each order's hash, the rankings.
  Output: {'OK', orders read}
]]
--- @include "includes/keys"
--- @include "includes/futures/accountStats"
--- @include "includes/futures/orderRecord"

local P, acct = ARGV[1], ARGV[2]
local ctx = { P = P, ts = ARGV[3] }
local ids = redis.call('ZRANGE', KEYS[1], 0, -1)
for _, id in ipairs(ids) do
  local h = fReadRecord(orderKey(P, id))
  if h and h.role == 'open' then
    fStatsApply(ctx, acct, h.pair, fStatsPart(h.status, fStatsNum(h.filled), fStatsNum(h.rpnl), fStatsNum(h.fee),
      fStatsNum(h.funding), fStatsNum(h.ecost), fStatsNum(h.cost), h.side, h.cts or ctx.ts, h.uts or ctx.ts), 1)
  end
end
local version = tonumber(redis.call('HGET', KEYS[2], 'dver') or '0')
redis.call('DEL', KEYS[2], KEYS[3], KEYS[4])
if ctx.stats then fStatsWrite(ctx, acct, ctx.stats[acct]) end
-- past every version a reader may hold: the rebuilt series is never taken for a cached one
redis.call('HSET', KEYS[2], 'dver', version + 1)
fRankAfter(P, acct, nil)
return { 'OK', fmt(#ids) }
