--[[
  Moves money between a user's wallet and futures accounts (docs/api-contract.md#operator-routes). Only the free balance of an
  account moves: margin locked by orders and positions stays.

  Input:
    KEYS[1] the user's wallet (available, hash by currency)
    KEYS[2] source account hash (KEYS[1] when the source is the wallet)
    KEYS[3] target account hash (KEYS[1] when the target is the wallet)
    KEYS[4] the shard's user event stream
    ARGV[1] user id   ARGV[2] currency   ARGV[3] amount, minor units (> 0)
    ARGV[4] source is an account 0 | 1   ARGV[5] target is an account 0 | 1
    ARGV[6] timestamp, ms                ARGV[7] stream MAXLEN
  Output:
    {'OK'}
    {'ERR', code, detail} nothing changed: ACCOUNT_NOT_FOUND, CURRENCY_MISMATCH, MARGIN_IN_USE,
      INSUFFICIENT_BALANCE, BALANCE_TOO_LARGE
  Events: one entry on KEYS[4]: wallet and/or account (transfer) for each side (includes/userEvents)
]]
--- @include "includes/safeInt"
--- @include "includes/fmt"
--- @include "includes/userEvents"
local rcall = redis.call
local wallet, src, dst = KEYS[1], KEYS[2], KEYS[3]
local user, cur, amount = ARGV[1], ARGV[2], tonumber(ARGV[3])
local srcAcct, dstAcct = ARGV[4] == '1', ARGV[5] == '1'

local function checkAccount(key)
  local f = rcall('HMGET', key, 'user', 'currency')
  if f[1] ~= user then return 'ACCOUNT_NOT_FOUND' end
  if f[2] ~= cur then return 'CURRENCY_MISMATCH' end
  return nil
end
for _, a in ipairs({ { srcAcct, src }, { dstAcct, dst } }) do
  if a[1] then
    local err = checkAccount(a[2])
    if err then return { 'ERR', err, '' } end
  end
end

local free
if srcAcct then
  free = tonumber(rcall('HGET', src, 'balance') or '0')
  if free < amount then
    local locked = tonumber(rcall('HGET', src, 'locked') or '0')
    if free + locked >= amount then return { 'ERR', 'MARGIN_IN_USE', '' } end
    return { 'ERR', 'INSUFFICIENT_BALANCE', cur }
  end
else
  free = tonumber(rcall('HGET', wallet, cur) or '0')
  if free < amount then return { 'ERR', 'INSUFFICIENT_BALANCE', cur } end
end
local dstField = cur
if dstAcct then dstField = 'balance' end
if not isSafe(tonumber(rcall('HGET', dst, dstField) or '0') + amount) then
  return { 'ERR', 'BALANCE_TOO_LARGE', '' }
end

local srcField = cur
if srcAcct then srcField = 'balance' end
rcall('HINCRBY', src, srcField, fmt(-amount))
rcall('HINCRBY', dst, dstField, fmt(amount))
local events = {}
for _, side in ipairs({ { srcAcct, src }, { dstAcct, dst } }) do
  if side[1] then
    events[#events + 1] = userEvents.account(user, rcall('HGET', side[2], 'id'), 'transfer')
  else
    events[#events + 1] = userEvents.wallet(user, cur, 'transfer')
  end
end
userEvents.append(KEYS[4], ARGV[6], ARGV[7], events)
return { 'OK' }
