--[[
  Step 3 of a transfer: on the receiving shard, credits the user's available balance and records
  the transfer id with its amount, in one step; a second delivery of the id credits nothing. The
  relay runs it on its own connection to this shard and makes it durable before it acknowledges
  the transfer at the sender, so data loss here cannot rewind a credit the sender has forgotten.
  A futures account's margin (ARGV[7]) is credited to the account's hash here, which must exist
  (its record is copied here before the first top-up: lua/futures/installFuturesAccount-1.lua).

  Input:
    KEYS[1] the credit record of this transfer   KEYS[2] the user's available balances (hash by currency),
            or the futures account's hash here when ARGV[7] names one (field `balance`)
    KEYS[3] when a top-up last credited escrow here (hash user -> ms; `facct:<id>` -> ms for an account)
    KEYS[4] transfer versions (hash user -> count)
    ARGV[1] user id   ARGV[2] currency   ARGV[3] amount, minor units
    ARGV[4] timestamp ms   ARGV[5] seconds the credit record is kept
    ARGV[6] 1 when this is a top-up of escrow (marks the escrow busy), 0 on the way home
    ARGV[7] futures account id, or '' (or absent) for the wallet
  Output:
    {'OK'} credited; {'DUP'} credited before, nothing done
    {'ERR', 'BALANCE_TOO_LARGE', ''} past 2^53: nothing done (the transfer stays in the outbox)
    {'ERR', 'ACCOUNT_NOT_FOUND', id} the account's hash is not here: nothing done (stays in the outbox)
]]
--- @include "includes/safeInt"
--- @include "includes/fmt"
local rcall = redis.call
local credit, avail, touched, versions = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local user, cur, amount = ARGV[1], ARGV[2], tonumber(ARGV[3])
local acct = ARGV[7] or ''
if rcall('EXISTS', credit) == 1 then return { 'DUP' } end
local field, touchedField = cur, user
if acct ~= '' then
  local owner = rcall('HMGET', avail, 'user', 'currency')
  if owner[1] ~= user or owner[2] ~= cur then return { 'ERR', 'ACCOUNT_NOT_FOUND', acct } end
  field, touchedField = 'balance', 'facct:' .. acct
end
local after = tonumber(rcall('HGET', avail, field) or '0') + amount
if not isSafe(after) then return { 'ERR', 'BALANCE_TOO_LARGE', '' } end
rcall('HSET', avail, field, fmt(after))
rcall('SET', credit, ARGV[3], 'EX', ARGV[5])
if ARGV[6] == '1' then rcall('HSET', touched, touchedField, ARGV[4]) end
rcall('HINCRBY', versions, user, 1)
return { 'OK' }
