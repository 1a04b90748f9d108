--[[
  Scores one master in the copy leaderboard's own rankings (src/platform/redis/ranking.ts: lowest
  first, members padded ids) from its records as they stand: followers (active subscriptions),
  aum (the margin allocated by them, in currency units) and newest (creation time); a master not
  Active is taken out. Run after every transition that changes them (CopyEngine); being a read of
  the records in one step, the last run leaves the right scores whatever order runs came in.
  O(subscriptions of the master).

  Input:
    KEYS[1] the master record   KEYS[2] the master's subscriptions (zset)
    KEYS[3] followers ranking   KEYS[4] aum ranking   KEYS[5] newest ranking
    ARGV[1] the subscription record key without its id (keys.copySubscription(''))
    ARGV[2] active subscriptions of the master whose records live at another shard (the follower's
      home, src/domain/shard-ids.ts: an id of more than 14 digits), read by the caller ('0' with one shard)
    ARGV[3] their margin, minor units
  Keys built while running: each subscription record of this shard (ARGV[1] .. id), under the same tag.
  Output: {'OK', followers}
]]
--- @include "includes/fmt"
--- @include "includes/futures/accountRank"

local m = redis.call('HMGET', KEYS[1], 'id', 'status', 'cts', 'dec')
if not m[1] then return { 'OK', '0' } end
local member = fRankMember(m[1])
if m[2] ~= 'Active' then
  for i = 3, 5 do redis.call('ZREM', KEYS[i], member) end
  return { 'OK', '0' }
end
local n, margin = tonumber(ARGV[2] or '0'), tonumber(ARGV[3] or '0')
for _, id in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
  local s = #id > 14 and {} or redis.call('HMGET', ARGV[1] .. id, 'active', 'margin')
  if s[1] == '1' then
    n = n + 1
    margin = margin + tonumber(s[2] or '0')
  end
end
redis.call('ZADD', KEYS[3], fmt(-n), member)
redis.call('ZADD', KEYS[4], string.format('%.17g', -margin / 10 ^ tonumber(m[4] or '0')), member)
redis.call('ZADD', KEYS[5], fmt(-tonumber(m[3])), member)
return { 'OK', fmt(n) }
