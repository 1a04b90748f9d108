--[[
  Changes an active subscription's margin and risk settings in one step (docs/copy-trading.md): the management
  fee is accrued on the old margin up to now (the change closes one accrual period and opens the
  next), then the difference moves from the slave's free balance in, or back out of the
  subscription's free balance, and netIn follows it, so margin changes are never profit. Concurrent
  changes serialize: each moves the difference from the margin the previous one left.

  Input:
    KEYS[1] the subscription record hash   KEYS[3] the slave's futures account
    KEYS[2] the subscription's ledger hash KEYS[4] the subscription's futures account
    ARGV[1] user id   ARGV[2] new margin, minor units ('' unchanged)   ARGV[3] now, ms
    ARGV[4] management fee, ppm a year   ARGV[5] stopLossPercent   ARGV[6] takeProfitPercent
    ARGV[7] maxSlippagePercent   (ARGV[5..7]: '' unchanged, 'none' cleared)
    KEYS[5] the shard's user event stream   ARGV[8] stream MAXLEN
  Output:
    {'OK', margin (minor units), moved in (negative: out)}
    {'ERR', code, detail} nothing changed: SUBSCRIPTION_NOT_FOUND, SUBSCRIPTION_FINISHED,
      MARGIN_IN_USE, INSUFFICIENT_BALANCE
  Events: when money moved, one entry on the user event stream: the follower's accounts, the master
    owner's wallet (includes/copy/copyUserEvents, includes/userEvents)
]]
--- @include "includes/copy/settle"
--- @include "includes/copy/copyUserEvents"
local rcall = redis.call
local subKey, ledgerKey, slaveAcct, subAcct = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local user, now, feePpm = ARGV[1], tonumber(ARGV[3]), tonumber(ARGV[4])

local sub = rcall('HMGET', subKey, 'user', 'state', 'margin', 'currency')
if sub[1] ~= user then return { 'ERR', 'SUBSCRIPTION_NOT_FOUND', '' } end
if sub[2] ~= 'Active' then return { 'ERR', 'SUBSCRIPTION_FINISHED', '' } end
local old = copyNum(sub[3])
local margin = old
if ARGV[2] ~= '' then margin = tonumber(ARGV[2]) end
local diff = margin - old
if diff > 0 then
  local free = copyNum(rcall('HGET', slaveAcct, 'balance'))
  if free < diff then
    if free + copyNum(rcall('HGET', slaveAcct, 'locked')) >= diff then return { 'ERR', 'MARGIN_IN_USE', '' } end
    return { 'ERR', 'INSUFFICIENT_BALANCE', sub[4] }
  end
elseif diff < 0 then
  if copyNum(rcall('HGET', subAcct, 'balance')) < -diff then return { 'ERR', 'MARGIN_IN_USE', '' } end
end

copyAccrueFee(ledgerKey, old, feePpm, now)
if diff > 0 then copyMove(slaveAcct, subAcct, ledgerKey, diff, 1) end
if diff < 0 then copyMove(subAcct, slaveAcct, ledgerKey, -diff, -1) end
rcall('HSET', subKey, 'margin', fmt(margin))
for i, field in ipairs({ 'stopLossPercent', 'takeProfitPercent', 'maxSlippagePercent' }) do
  local v = ARGV[4 + i]
  if v == 'none' then rcall('HSET', subKey, field, '') elseif v ~= '' then rcall('HSET', subKey, field, v) end
end
if diff ~= 0 then copyUserEvents(KEYS[5], ARGV[3], ARGV[8], subKey, true, '') end
return { 'OK', fmt(margin), fmt(diff) }
