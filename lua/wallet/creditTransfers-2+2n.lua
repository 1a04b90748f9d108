--[[
  Step 3 of n transfers to this shard: for each, in the order given, credits the user's available
  balance and records the transfer id with its amount; a second delivery of an id credits
  nothing. The relay runs it on its own connection to this shard, one call for the credits that
  queued up while its previous call ran (group commit), and makes it durable before it
  acknowledges the transfers at their senders, so data loss here cannot rewind a credit a sender
  has forgotten. A refused credit changes nothing and does not stop the others.

  Input: n transfers; the file name says 2 keys plus 2 per transfer.
    KEYS[1] when a top-up last credited escrow here (hash user -> ms)
    KEYS[2] transfer versions (hash user -> count)
    per transfer i, from k = 2 + 2 (i - 1):
    KEYS[k+1] the credit record of this transfer   KEYS[k+2] the user's available balances (hash by currency)
    ARGV[1] timestamp ms   ARGV[2] seconds a credit record is kept
    per transfer i, from a = 2 + 4 (i - 1):
    ARGV[a+1] user id   ARGV[a+2] currency   ARGV[a+3] amount, minor units
    ARGV[a+4] 1 when this is a top-up of escrow (marks the escrow busy), 0 on the way home
  Output: one reply per transfer, in order:
    {'OK'} credited; {'DUP'} credited before, nothing done
    {'ERR', 'BALANCE_TOO_LARGE', ''} past 2^53: nothing done (the transfer stays in the outbox)
]]
--- @include "includes/safeInt"
--- @include "includes/fmt"
local rcall = redis.call
local touched, versions = KEYS[1], KEYS[2]
local now, keep = ARGV[1], ARGV[2]
local out = {}
for i = 1, (#KEYS - 2) / 2 do
  local credit, avail = KEYS[1 + 2 * i], KEYS[2 + 2 * i]
  local a = 2 + 4 * (i - 1)
  local user, cur, amount = ARGV[a + 1], ARGV[a + 2], ARGV[a + 3]
  if rcall('EXISTS', credit) == 1 then
    out[i] = { 'DUP' }
  else
    local after = tonumber(rcall('HGET', avail, cur) or '0') + tonumber(amount)
    if not isSafe(after) then
      out[i] = { 'ERR', 'BALANCE_TOO_LARGE', '' }
    else
      rcall('HSET', avail, cur, fmt(after))
      rcall('SET', credit, amount, 'EX', keep)
      if ARGV[a + 4] == '1' then rcall('HSET', touched, user, now) end
      rcall('HINCRBY', versions, user, 1)
      out[i] = { 'OK' }
    end
  end
end
return out
