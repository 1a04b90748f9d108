--[[
  Step 3 of n transfers to this shard: for each, in the order given, credits the user's available
  balance (or a futures account's margin) and records the transfer id with its amount; a second
  delivery of an id credits nothing. The relay runs it on its own connection to this shard, one
  call for the credits that queued up while its previous call ran (group commit), and makes it
  durable before it acknowledges the transfers at their senders, so data loss here cannot rewind a
  credit a sender has forgotten. A refused credit changes nothing and does not stop the others.
  A futures account's margin is credited to the account's hash here, which must exist (its record
  is copied here before the first top-up: lua/futures/installFuturesAccount-1.lua).

  Input: n transfers; the file name says 3 keys plus 2 per transfer.
    KEYS[1] when a top-up last credited escrow here (hash user -> ms; `facct:<id>` -> ms for an account)
    KEYS[2] transfer versions (hash user -> count)
    KEYS[3] this shard's user event stream
    per transfer i, from k = 3 + 2 (i - 1):
    KEYS[k+1] the credit record of this transfer
    KEYS[k+2] the user's available balances (hash by currency), or the futures account's hash here
              when the transfer names one (field `balance`)
    ARGV[1] timestamp ms   ARGV[2] seconds a credit record is kept   ARGV[3] user event stream MAXLEN
    per transfer i, from a = 3 + 6 (i - 1):
    ARGV[a+1] user id   ARGV[a+2] currency   ARGV[a+3] amount, minor units
    ARGV[a+4] 1 when this is a top-up of escrow (marks the escrow busy), 0 on the way home
    ARGV[a+5] futures account id, or '' for the wallet   ARGV[a+6] transfer id
  Output: one reply per transfer, in order:
    {'OK'} credited; {'DUP'} credited before, nothing done
    {'ERR', 'BALANCE_TOO_LARGE', ''} past 2^53: nothing done (the transfer stays in the outbox)
    {'ERR', 'ACCOUNT_NOT_FOUND', id} the account's hash is not here: nothing done (stays in the outbox)
  Events: when a wallet was credited, one entry on KEYS[3]: per credit, wallet (transfer) with the
    transfer's id and amount as arrived (xi, xa), so the private stream stops counting it in flight
    (includes/userEvents).
]]
--- @include "includes/safeInt"
--- @include "includes/fmt"
--- @include "includes/userEvents"
local rcall = redis.call
local touched, versions = KEYS[1], KEYS[2]
local now, keep = ARGV[1], ARGV[2]

local function creditOne(credit, avail, user, cur, amount, topUp, acct)
  if rcall('EXISTS', credit) == 1 then return { 'DUP' } end
  local field, touchedField = cur, user
  if acct ~= '' then
    local owner = rcall('HMGET', avail, 'user', 'currency')
    if owner[1] ~= user or owner[2] ~= cur then return { 'ERR', 'ACCOUNT_NOT_FOUND', acct } end
    field, touchedField = 'balance', 'facct:' .. acct
  end
  local after = tonumber(rcall('HGET', avail, field) or '0') + tonumber(amount)
  if not isSafe(after) then return { 'ERR', 'BALANCE_TOO_LARGE', '' } end
  rcall('HSET', avail, field, fmt(after))
  rcall('SET', credit, amount, 'EX', keep)
  if topUp == '1' then rcall('HSET', touched, touchedField, now) end
  rcall('HINCRBY', versions, user, 1)
  return { 'OK' }
end

local out, events = {}, {}
for i = 1, (#KEYS - 3) / 2 do
  local a = 3 + 6 * (i - 1)
  out[i] = creditOne(KEYS[2 + 2 * i], KEYS[3 + 2 * i], ARGV[a + 1], ARGV[a + 2], ARGV[a + 3], ARGV[a + 4], ARGV[a + 5])
  if out[i][1] == 'OK' and ARGV[a + 5] == '' then
    local e = userEvents.wallet(ARGV[a + 1], ARGV[a + 2], 'transfer')
    e.xi, e.xa = ARGV[a + 6], ARGV[a + 3]
    events[#events + 1] = e
  end
end
if #events > 0 then userEvents.append(KEYS[3], now, ARGV[3], events) end
return out
