--[[
  Last step of closing a master (Closing -> Closed, docs/copy-trading.md), once its positions are closed and
  its subscriptions finished: the free balance of its account returns to the owner's wallet and
  closedAt is set. Idempotent: a repeat moves what is free (usually nothing) and keeps closedAt.

  Input:
    KEYS[1] the master record hash   KEYS[3] the owner's wallet (available, by currency)
    KEYS[2] the master's account     KEYS[4] closing masters (set)
    ARGV[1] now, ms
    KEYS[5] the shard's user event stream   ARGV[2] stream MAXLEN
  Output:
    {'OK', moved (minor units)}
    {'ERR', code, detail} nothing changed: MASTER_NOT_FOUND, MASTER_ACTIVE
  Events: when money moved, one entry on the user event stream: the follower's accounts, the master
    owner's wallet (includes/copy/copyUserEvents, includes/userEvents)
]]
--- @include "includes/fmt"
--- @include "includes/userEvents"
local m = redis.call('HMGET', KEYS[1], 'id', 'status', 'currency')
if not m[1] then return { 'ERR', 'MASTER_NOT_FOUND', '' } end
if m[2] == 'Active' then return { 'ERR', 'MASTER_ACTIVE', '' } end
local free = math.max(tonumber(redis.call('HGET', KEYS[2], 'balance') or '0'), 0)
if free > 0 then
  redis.call('HINCRBY', KEYS[2], 'balance', fmt(-free))
  redis.call('HINCRBY', KEYS[3], m[3], fmt(free))
end
if m[2] == 'Closing' then redis.call('HSET', KEYS[1], 'status', 'Closed', 'closedAt', ARGV[1]) end
redis.call('SREM', KEYS[4], m[1])
if free > 0 then
  local user = redis.call('HGET', KEYS[1], 'user')
  userEvents.append(KEYS[5], ARGV[1], ARGV[2],
    { userEvents.account(user, m[1], 'copy'), userEvents.wallet(user, m[3], 'copy') })
end
return { 'OK', fmt(free) }
