--[[
  Last step of finishing a subscription (Finishing -> Finished, docs/copy-trading.md), and the return of money a
  finished subscription's position released later (closeOrders false): settles the profit share of
  what is realized now, pays what is owed (as settleCopy pays), then moves the free balance back to
  the slave's account (netIn follows). The first completion records the equity (cash: balance +
  locked) and profit at that moment. Idempotent: a repeat settles nothing new and moves what is
  free, usually nothing.

  Input:
    KEYS[1] the subscription record hash   KEYS[4] the master owner's wallet here
    KEYS[2] the subscription's ledger hash KEYS[5] the slave's futures account
    KEYS[3] the subscription's account     KEYS[6] finishing subscriptions (set)
    KEYS[7] the shard's user event stream
    KEYS[8] this shard's outbox   KEYS[9] the owner's pending transfers from here   KEYS[10] transfer versions
    ARGV[1] share, ppm   ARGV[2] timestamp, ms   ARGV[3] stream MAXLEN
    ARGV[4] engine prefix   ARGV[5] payment transfer id ('' the owner's home is this shard)
    ARGV[6] the master owner's user id   ARGV[7] this shard   ARGV[8] the owner's home shard
  Output:
    {'OK', moved back (minor units), payment transfer id ('' none sent)}
    {'ERR', code, detail} nothing changed: SUBSCRIPTION_NOT_FOUND, SUBSCRIPTION_ACTIVE
  Events: when money moved, one entry on the user event stream: the follower's accounts, the master
    owner's wallet (paid here, or a payment sent home and in flight: includes/copy/copyUserEvents,
    includes/userEvents); a payment sent: an entry on the outbox (includes/wallet/transferOut)
]]
--- @include "includes/copy/settle"
--- @include "includes/copy/copyUserEvents"
local subKey, ledgerKey, acctKey, slaveAcct = KEYS[1], KEYS[2], KEYS[3], KEYS[5]

local sub = redis.call('HMGET', subKey, 'id', 'state', 'currency', 'user')
if not sub[1] then return { 'ERR', 'SUBSCRIPTION_NOT_FOUND', '' } end
if sub[2] == 'Active' then return { 'ERR', 'SUBSCRIPTION_ACTIVE', '' } end
copyAccrueShare(acctKey, ledgerKey, tonumber(ARGV[1]))
local payee = copyPayee(KEYS, ARGV, 4, 8, 4, sub[4], ARGV[2])
local _, _, sent = copyPay(acctKey, ledgerKey, sub[3], payee)
if sub[2] == 'Finishing' then
  local a = redis.call('HMGET', acctKey, 'balance', 'locked')
  local equity = copyNum(a[1]) + copyNum(a[2])
  local netIn = copyNum(redis.call('HGET', ledgerKey, 'netIn'))
  redis.call('HSET', subKey, 'state', 'Finished', 'settledEquity', fmt(equity), 'profit', fmt(equity - netIn))
  redis.call('SREM', KEYS[6], sub[1])
end
local free = math.max(copyNum(redis.call('HGET', acctKey, 'balance')), 0)
copyMove(acctKey, slaveAcct, ledgerKey, free, -1)
copyUserEvents(KEYS[7], ARGV[2], ARGV[3], subKey, true, copyPayeeEventUser(payee))
return { 'OK', fmt(free), sent }
