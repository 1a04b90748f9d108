--[[
  First step of finishing a subscription (Active -> Finishing, docs/copy-trading.md): settles it as it stands
  (fee up to now, share of the profit realized so far, paid as settleCopy pays), stops copying (the
  mirror places nothing for a subscription not Active), frees the (master, slave) slot and lists it
  as finishing, so a worker resumes it after a crash. Only one finish wins: any other finds it not
  Active (409). completeCopyFinish then settles again after the positions closed and returns the money.

  Input:
    KEYS[1] the subscription record hash   KEYS[4] the master owner's wallet here
    KEYS[2] the subscription's ledger hash KEYS[5] active (master, slave) slot
    KEYS[3] the subscription's account     KEYS[6] finishing subscriptions (set)
    KEYS[7] the shard's user event stream
    KEYS[8] this shard's outbox   KEYS[9] the owner's pending transfers from here   KEYS[10] transfer versions
    ARGV[1] now, ms   ARGV[2] fee, ppm a year   ARGV[3] share, ppm   ARGV[4] reason
    ARGV[5] closeOrders 0 | 1   ARGV[6] user id ('' any: a master close)   ARGV[7] stream MAXLEN
    ARGV[8] engine prefix   ARGV[9] payment transfer id ('' the owner's home is this shard)
    ARGV[10] the master owner's user id   ARGV[11] this shard   ARGV[12] the owner's home shard
  Output:
    {'OK', payment transfer id ('' none sent)}
    {'ERR', code, detail} nothing changed: SUBSCRIPTION_NOT_FOUND, SUBSCRIPTION_FINISHED
  Events: when money moved, one entry on the user event stream: the follower's accounts, the master
    owner's wallet (paid here, or a payment sent home and in flight: includes/copy/copyUserEvents,
    includes/userEvents); a payment sent: an entry on the outbox (includes/wallet/transferOut)
]]
--- @include "includes/copy/settle"
--- @include "includes/copy/copyUserEvents"
local subKey, ledgerKey, acctKey = KEYS[1], KEYS[2], KEYS[3]
local now, feePpm, sharePpm = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])

local sub = redis.call('HMGET', subKey, 'id', 'state', 'margin', 'currency', 'user')
if not sub[1] or (ARGV[6] ~= '' and sub[5] ~= ARGV[6]) then return { 'ERR', 'SUBSCRIPTION_NOT_FOUND', '' } end
if sub[2] ~= 'Active' then return { 'ERR', 'SUBSCRIPTION_FINISHED', '' } end
copyAccrueFee(ledgerKey, copyNum(sub[3]), feePpm, now)
copyAccrueShare(acctKey, ledgerKey, sharePpm)
local payee = copyPayee(KEYS, ARGV, 4, 8, 8, sub[5], ARGV[1])
local _, _, sent = copyPay(acctKey, ledgerKey, sub[4], payee)
redis.call('HSET', subKey, 'state', 'Finishing', 'active', '0', 'closed', ARGV[1], 'reason', ARGV[4], 'closeOrders', ARGV[5])
redis.call('DEL', KEYS[5])
redis.call('SADD', KEYS[6], sub[1])
copyUserEvents(KEYS[7], ARGV[1], ARGV[7], subKey, false, copyPayeeEventUser(payee))
return { 'OK', sent }
