--[[
  Last step of closing a master (Closing -> Closed, docs/copy-trading.md), once its positions are closed and
  its subscriptions finished: the free balance of its account returns to the owner's wallet (here,
  or by a transfer to the owner's home when that is another shard: includes/wallet/transferOut)
  and closedAt is set. Idempotent: a repeat moves what is free (usually nothing) and keeps closedAt.

  Input:
    KEYS[1] the master record hash   KEYS[3] the owner's wallet here (available, by currency)
    KEYS[2] the master's account     KEYS[4] closing masters (set)
    KEYS[5] the shard's user event stream
    KEYS[6] this shard's outbox   KEYS[7] the owner's pending transfers from here   KEYS[8] transfer versions
    ARGV[1] now, ms   ARGV[2] stream MAXLEN
    ARGV[3] engine prefix   ARGV[4] transfer id ('' the owner's home is this shard)
    ARGV[5] this shard   ARGV[6] the owner's home shard
  Output:
    {'OK', moved (minor units), transfer id ('' none sent)}
    {'ERR', code, detail} nothing changed: MASTER_NOT_FOUND, MASTER_ACTIVE
  Events: when money moved, one entry on the user event stream: the master's account, and the
    owner's wallet (credited here, or sent home and in flight: includes/userEvents); a transfer
    sent: an entry on the outbox
]]
--- @include "includes/fmt"
--- @include "includes/keys"
--- @include "includes/userEvents"
--- @include "includes/wallet/transferOut"
local m = redis.call('HMGET', KEYS[1], 'id', 'status', 'currency', 'user')
if not m[1] then return { 'ERR', 'MASTER_NOT_FOUND', '' } end
if m[2] == 'Active' then return { 'ERR', 'MASTER_ACTIVE', '' } end
local free = math.max(tonumber(redis.call('HGET', KEYS[2], 'balance') or '0'), 0)
local sent = ''
if free > 0 then
  redis.call('HINCRBY', KEYS[2], 'balance', fmt(-free))
  if ARGV[4] == '' then
    redis.call('HINCRBY', KEYS[3], m[3], fmt(free))
  else
    transferOut(transferKey(ARGV[3], ARGV[4]), KEYS[6], KEYS[7], KEYS[8], {
      id = ARGV[4], user = m[4], cur = m[3], amount = fmt(free), from = ARGV[5], to = ARGV[6], ts = ARGV[1] })
    sent = ARGV[4]
  end
end
if m[2] == 'Closing' then redis.call('HSET', KEYS[1], 'status', 'Closed', 'closedAt', ARGV[1]) end
redis.call('SREM', KEYS[4], m[1])
if free > 0 then
  local events = { userEvents.account(m[4], m[1], 'copy'), userEvents.wallet(m[4], m[3], 'copy') }
  -- sent home: in flight until credited there (includes/userEvents)
  if sent ~= '' then events[2].xo, events[2].xa = sent, fmt(free) end
  userEvents.append(KEYS[5], ARGV[1], ARGV[2], events)
end
return { 'OK', fmt(free), sent }
