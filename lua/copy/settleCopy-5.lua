--[[
  Settles one subscription up to now (docs/copy-trading.md; the daily job and every finish step): accrues the
  management fee while the subscription is Active, moves the high-water mark of realized profit up
  and owes the profit share of the rise, then pays what is owed from the free balance to the master
  owner's wallet. Running it again at the same moment pays nothing more.

  Input:
    KEYS[1] the subscription record hash   KEYS[3] the subscription's futures account
    KEYS[2] the subscription's ledger hash KEYS[4] the master owner's wallet (available, by currency)
    ARGV[1] now, ms   ARGV[2] management fee, ppm a year   ARGV[3] profit share, ppm
    KEYS[5] the shard's user event stream   ARGV[4] stream MAXLEN   ARGV[5] the master owner's user id
  Output:
    {'OK', fee paid, share paid}
    {'ERR', 'SUBSCRIPTION_NOT_FOUND', ''}
  Events: when money moved, one entry on the user event stream: the follower's accounts, the master
    owner's wallet (includes/copy/copyUserEvents, includes/userEvents)
]]
--- @include "includes/copy/settle"
--- @include "includes/copy/copyUserEvents"
local subKey, ledgerKey, acctKey, walletKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local now, feePpm, sharePpm = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])

local sub = redis.call('HMGET', subKey, 'state', 'margin', 'currency')
if not sub[1] then return { 'ERR', 'SUBSCRIPTION_NOT_FOUND', '' } end
if sub[1] == 'Active' then copyAccrueFee(ledgerKey, copyNum(sub[2]), feePpm, now) end
copyAccrueShare(acctKey, ledgerKey, sharePpm)
local fee, share = copyPay(acctKey, walletKey, ledgerKey, sub[3])
if fee + share > 0 then copyUserEvents(KEYS[5], ARGV[1], ARGV[4], subKey, false, ARGV[5]) end
return { 'OK', fmt(fee), fmt(share) }
