--[[
  Moves margin between a copy slave's futures account and the futures account of one of its
  subscriptions (docs/copy-trading.md), and books the move in the subscription's ledger in the
  same step: `netIn` is what the slave has put into the subscription, net of what came back.
  Only free balance moves; margin locked by orders and positions stays.

  Input:
    KEYS[1] source futures account hash   KEYS[3] the subscription's ledger hash
    KEYS[2] target futures account hash
    ARGV[1] user id (owns both accounts)  ARGV[4] 'in' (slave -> subscription) | 'out' (back)
    ARGV[2] currency                      ARGV[5] '1': move the whole free balance (ARGV[3] ignored)
    ARGV[3] amount, minor units (> 0)     ARGV[6] timestamp, ms (starts the fee accrual of a new ledger)
  Output:
    {'OK', moved (minor units, decimal string)}
    {'ERR', code, detail} nothing changed: ACCOUNT_NOT_FOUND, CURRENCY_MISMATCH, MARGIN_IN_USE,
      INSUFFICIENT_BALANCE, BALANCE_TOO_LARGE
]]
--- @include "includes/safeInt"
--- @include "includes/fmt"
local rcall = redis.call
local srcKey, dstKey, ledgerKey = KEYS[1], KEYS[2], KEYS[3]
local user, cur, amount, dir, all, ts = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4], ARGV[5] == '1', ARGV[6]

for _, key in ipairs({ srcKey, dstKey }) do
  local f = rcall('HMGET', key, 'user', 'currency')
  if f[1] ~= user then return { 'ERR', 'ACCOUNT_NOT_FOUND', '' } end
  if f[2] ~= cur then return { 'ERR', 'CURRENCY_MISMATCH', cur } end
end

local free = tonumber(rcall('HGET', srcKey, 'balance') or '0')
if all then amount = math.max(free, 0) end
if free < amount then
  local locked = tonumber(rcall('HGET', srcKey, 'locked') or '0')
  if free + locked >= amount then return { 'ERR', 'MARGIN_IN_USE', '' } end
  return { 'ERR', 'INSUFFICIENT_BALANCE', cur }
end
if not isSafe(tonumber(rcall('HGET', dstKey, 'balance') or '0') + amount) then
  return { 'ERR', 'BALANCE_TOO_LARGE', '' }
end

local netIn = amount
if dir == 'out' then netIn = -amount end
rcall('HSETNX', ledgerKey, 'feeTs', ts)
rcall('HSETNX', ledgerKey, 'hwm', '0')
if amount > 0 then
  rcall('HINCRBY', srcKey, 'balance', fmt(-amount))
  rcall('HINCRBY', dstKey, 'balance', fmt(amount))
  rcall('HINCRBY', ledgerKey, 'netIn', fmt(netIn))
end
return { 'OK', fmt(amount) }
