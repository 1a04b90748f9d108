--[[
  Step 1 of a transfer between engine shards (docs/architecture.md, "Engine shards"): on the shard
  the money leaves, debits the user's available balance, writes the transfer record and appends it
  to the shard's outbox, all in this one step. A replay of the same transfer id does nothing, so a
  caller that lost the reply sends it again. Used both ways: a top-up from the home ledger to
  escrow on a market's shard, and a sweep of escrow back home. The same for a futures account's
  margin (ARGV[11]): its free balance on the shard it is registered on (its owner's home), moved to
  the account's hash of the same name on a market's shard and back (docs/futures.md, "Futures on
  engine shards").

  Input:
    KEYS[1] the user's available balances here (hash by currency); a futures account's hash here
            when ARGV[11] names one (its field `balance`)
    KEYS[2] the user's reserved balances here (hash by currency; read by an idle sweep); unused for
            an account (its own `locked` says whether it holds margin here)
    KEYS[3] when a top-up last credited escrow here (hash user -> ms; `facct:<id>` -> ms for an account)
    KEYS[4] the transfer record            KEYS[5] this shard's outbox stream
    KEYS[6] the user's pending transfers from here (hash id -> cur|amount|to)
    KEYS[7] transfer versions (hash user -> count)
    KEYS[8] this shard's user event stream (a wallet's money in flight: includes/userEvents)
    ARGV[1] transfer id    ARGV[2] user id    ARGV[3] currency
    ARGV[4] amount wanted, minor units   ARGV[5] least amount that will do, minor units
    ARGV[6] mode: `exact` (between least and wanted, as much as there is), `all` (everything
            available; wanted and least ignored), `idle` (everything, only if no top-up credited
            since ARGV[10] and nothing reserved here; the user leaves KEYS[3])
    ARGV[7] from shard   ARGV[8] to shard   ARGV[9] timestamp ms   ARGV[10] idle before, ms
    ARGV[11] futures account id, or '' for the wallet
    ARGV[12] user event stream MAXLEN
  Output:
    {'OK', amount}   debited and recorded
    {'DUP', amount}  this id was sent before: nothing done
    {'NONE'}         nothing to move (all / idle with an empty, busy or reserving escrow)
    {'ERR', 'INSUFFICIENT_BALANCE', currency}   exact mode below the least amount: nothing done
    {'ERR', 'ACCOUNT_NOT_FOUND', id}   the account here is not the user's in this currency: nothing done
  Events: an entry on KEYS[5]: id, user, cur, amount, from, to, acct, kind (move), payer (the user);
    for the wallet, one on KEYS[8]: wallet (transfer) with the amount in flight (xo, xa), so the
    private stream's sum over shards does not dip while it travels (includes/userEvents).
]]
--- @include "includes/fmt"
--- @include "includes/wallet/transferOut"
--- @include "includes/userEvents"
local rcall = redis.call
local avail, rsv, touched, record, outbox, pending, versions = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5],
  KEYS[6], KEYS[7]
local id, user, cur, mode, acct = ARGV[1], ARGV[2], ARGV[3], ARGV[6], ARGV[11] or ''

local sent = rcall('HGET', record, 'amount')
if sent then return { 'DUP', sent } end

local field, touchedField = cur, user
if acct ~= '' then
  local owner = rcall('HMGET', avail, 'user', 'currency')
  if owner[1] ~= user or owner[2] ~= cur then return { 'ERR', 'ACCOUNT_NOT_FOUND', acct } end
  field, touchedField = 'balance', 'facct:' .. acct
end
local balance = tonumber(rcall('HGET', avail, field) or '0')
local take
if mode == 'exact' then
  take = math.min(balance, tonumber(ARGV[4]))
  if take < tonumber(ARGV[5]) or take <= 0 then return { 'ERR', 'INSUFFICIENT_BALANCE', cur } end
else
  if mode == 'idle' then
    local last = rcall('HGET', touched, touchedField)
    if last and tonumber(last) > tonumber(ARGV[10]) then return { 'NONE' } end
    if acct ~= '' then
      -- margin locked by open orders or positions here: the account is not idle here
      if tonumber(rcall('HGET', avail, 'locked') or '0') ~= 0 then return { 'NONE' } end
    else
      local held = rcall('HVALS', rsv)
      for i = 1, #held do
        if tonumber(held[i]) ~= 0 then return { 'NONE' } end
      end
    end
    -- idle and free: the next sweep need not look at this user again until a top-up comes
    rcall('HDEL', touched, touchedField)
  end
  take = balance
  if take <= 0 then return { 'NONE' } end
end

local amount = fmt(take)
rcall('HSET', avail, field, fmt(balance - take))
transferOut(record, outbox, pending, versions, { id = id, user = user, cur = cur, amount = amount, from = ARGV[7],
  to = ARGV[8], ts = ARGV[9], acct = acct })
if acct == '' then
  local e = userEvents.wallet(user, cur, 'transfer')
  e.xo, e.xa = id, amount
  userEvents.append(KEYS[8], ARGV[9], ARGV[12], { e })
end
return { 'OK', amount }
