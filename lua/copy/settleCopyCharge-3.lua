--[[
  Pays a master from one copy subscription's futures account (docs/copy-trading.md): the management
  fee accrued since `feeTs`, or the profit share above the high-water mark `hwm`. The caller computes
  the amount from prices it read; the mark it read it at must still stand (compare and set), so two
  settlements racing each other pay once. The charge is capped at the account's free balance.

  Input:
    KEYS[1] the subscription's futures account hash   KEYS[3] the subscription's ledger hash
    KEYS[2] the master owner's wallet (available, hash by currency)
    ARGV[1] currency
    ARGV[2] 'fee' | 'share'
    ARGV[3] amount, minor units (>= 0)
    ARGV[4] the mark the amount was computed at: feeTs (fee) or hwm (share)
    ARGV[5] fee: the new feeTs; share: the subscription's profit the amount was computed at
  Output:
    {'OK', charged (decimal string)}
    {'STALE', ''}   the mark moved since it was read: nothing changed
]]
--- @include "includes/fmt"
local rcall = redis.call
local acctKey, walletKey, ledgerKey = KEYS[1], KEYS[2], KEYS[3]
local cur, kind, amount, mark, next = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4], ARGV[5]

local markField = 'hwm'
if kind == 'fee' then markField = 'feeTs' end
if (rcall('HGET', ledgerKey, markField) or '') ~= mark then return { 'STALE', '' } end

local free = tonumber(rcall('HGET', acctKey, 'balance') or '0')
local charge = math.max(0, math.min(amount, free))
if charge > 0 then
  rcall('HINCRBY', acctKey, 'balance', fmt(-charge))
  rcall('HINCRBY', walletKey, cur, fmt(charge))
end
if kind == 'fee' then
  rcall('HINCRBY', ledgerKey, 'commission', fmt(charge))
  rcall('HSET', ledgerKey, 'feeTs', next)
else
  rcall('HINCRBY', ledgerKey, 'shared', fmt(charge))
  rcall('HSET', ledgerKey, 'hwm', fmt(tonumber(next) - charge))
end
return { 'OK', fmt(charge) }
