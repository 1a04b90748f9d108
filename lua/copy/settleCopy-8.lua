--[[
  Settles one subscription up to now (docs/copy-trading.md; the daily job and every finish step): accrues the
  management fee while the subscription is Active, moves the high-water mark of realized profit up
  and owes the profit share of the rise, then pays what is owed from the free balance to the master
  owner (includes/copy/settle copyPay: the owner's wallet here, or a payment transfer to the
  owner's home). Running it again at the same moment pays nothing more.

  Input:
    KEYS[1] the subscription record hash   KEYS[3] the subscription's futures account
    KEYS[2] the subscription's ledger hash KEYS[4] the master owner's wallet here (available, by currency)
    KEYS[5] the shard's user event stream
    KEYS[6] this shard's outbox   KEYS[7] the owner's pending transfers from here   KEYS[8] transfer versions
    ARGV[1] now, ms   ARGV[2] management fee, ppm a year   ARGV[3] profit share, ppm
    ARGV[4] stream MAXLEN
    ARGV[5] engine prefix   ARGV[6] payment transfer id ('' the owner's home is this shard)
    ARGV[7] the master owner's user id   ARGV[8] this shard   ARGV[9] the owner's home shard
  Output:
    {'OK', fee paid, share paid, payment transfer id ('' none sent)}
    {'ERR', 'SUBSCRIPTION_NOT_FOUND', ''}
  Events: when money moved, one entry on the user event stream: the follower's accounts, the master
    owner's wallet (paid here, or a payment sent home and in flight: includes/copy/copyUserEvents,
    includes/userEvents); a payment sent: an entry on the outbox (includes/wallet/transferOut)
]]
--- @include "includes/copy/settle"
--- @include "includes/copy/copyUserEvents"
local subKey, ledgerKey, acctKey = KEYS[1], KEYS[2], KEYS[3]
local now, feePpm, sharePpm = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])

local sub = redis.call('HMGET', subKey, 'state', 'margin', 'currency', 'user')
if not sub[1] then return { 'ERR', 'SUBSCRIPTION_NOT_FOUND', '' } end
if sub[1] == 'Active' then copyAccrueFee(ledgerKey, copyNum(sub[2]), feePpm, now) end
copyAccrueShare(acctKey, ledgerKey, sharePpm)
local payee = copyPayee(KEYS, ARGV, 4, 6, 5, sub[4], ARGV[1])
local fee, share, sent = copyPay(acctKey, ledgerKey, sub[3], payee)
if fee + share > 0 then copyUserEvents(KEYS[5], ARGV[1], ARGV[4], subKey, false, copyPayeeEventUser(payee)) end
return { 'OK', fmt(fee), fmt(share), sent }
