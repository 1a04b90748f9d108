--[[
  Starts a copy subscription in one step at the follower's home (docs/copy-trading.md): checks the
  master is Active and not the follower's own, that the slave has no active subscription to it and
  the free margin, then moves the margin from the slave's account into the subscription's account
  (made before, empty, flagged `copy`), claims the (master, slave) slot, writes the subscription
  record, its ledger and the follower's indices. Nothing is half done: a crash before leaves an
  empty account only.

  The master's side (its record, its subscriptions, the follower users, the account -> subscription
  map) lives on shard 0. When the follower's home is shard 0 (always with one shard) this step
  writes it too (ARGV[9] '1'). Otherwise KEYS[1], KEYS[2], KEYS[8], KEYS[10] are this shard's keys of the same
  names, the master's status is checked by the next step (lua/copy/linkCopySubscription on shard 0,
  atomically with adding the subscription to the master's list), and the subscription waits in
  KEYS[13] (starting) until that step ran: a worker resumes it (CopySettlementService.resume).

  Input:
    KEYS[1] master record hash       KEYS[5] the subscription's futures account   KEYS[9]  slave's subscriptions (zset)
    KEYS[2] slave record hash        KEYS[6] the subscription record hash         KEYS[10] follower users (set)
    KEYS[3] active (master, slave)   KEYS[7] the subscription's ledger hash       KEYS[11] subscription accounts (hash)
    KEYS[4] slave's futures account  KEYS[8] master's subscriptions (zset)
    ARGV[1] user id   ARGV[2] subscription id   ARGV[3] margin, minor units (> 0)   ARGV[4] now, ms
    ARGV[5] stopLossPercent ('' none)   ARGV[6] takeProfitPercent ('' none)   ARGV[7] maxSlippagePercent
    KEYS[12] the shard's user event stream   ARGV[8] stream MAXLEN
    KEYS[13] subscriptions started here and not linked to their master yet (set)
    ARGV[9] '1' the master's side is on this shard (written here), '0' linked by the next step
    ARGV[10] master id   ARGV[11] its currency   ARGV[12] slave id (with ARGV[9] '0': the master and
      slave records are on shard 0, read by the caller; KEYS[1], KEYS[2] are unused then)
  Output:
    {'OK', subscription id}
    {'ERR', code, detail} nothing changed: MASTER_NOT_FOUND, MASTER_CLOSED, SELF_COPY, SLAVE_NOT_FOUND,
      CURRENCY_MISMATCH, SUBSCRIPTION_EXISTS, COPY_ACCOUNT, MARGIN_IN_USE, INSUFFICIENT_BALANCE
  Events: when money moved, one entry on the user event stream: the follower's accounts, the master
    owner's wallet (includes/copy/copyUserEvents, includes/userEvents)
]]
--- @include "includes/copy/settle"
--- @include "includes/copy/copyUserEvents"
local rcall = redis.call
local masterKey, slaveKey, claimKey, slaveAcct, subAcct = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local subKey, ledgerKey = KEYS[6], KEYS[7]
local user, subId, margin, now = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]

local here = ARGV[9] == '1'
local m
if here then
  m = rcall('HMGET', masterKey, 'id', 'status', 'user', 'currency')
  if not m[1] then return { 'ERR', 'MASTER_NOT_FOUND', '' } end
  if m[2] ~= 'Active' then return { 'ERR', 'MASTER_CLOSED', '' } end
  if m[3] == user then return { 'ERR', 'SELF_COPY', '' } end
else
  -- the master's id and currency (checked by the caller; its status by the link step)
  m = { ARGV[10], 'Active', '', ARGV[11] }
end
local s = rcall('HMGET', slaveKey, 'id', 'user', 'currency')
if not here then s = { ARGV[12], user, ARGV[11] } end
if s[2] ~= user then return { 'ERR', 'SLAVE_NOT_FOUND', '' } end
if s[3] ~= m[4] then return { 'ERR', 'CURRENCY_MISMATCH', m[4] } end
if rcall('EXISTS', claimKey) == 1 then return { 'ERR', 'SUBSCRIPTION_EXISTS', '' } end
local a = rcall('HMGET', subAcct, 'id', 'user', 'currency', 'copy', 'balance', 'locked')
if a[2] ~= user or a[3] ~= m[4] or a[4] ~= '1' or copyNum(a[5]) ~= 0 or copyNum(a[6]) ~= 0
  or rcall('HEXISTS', KEYS[11], a[1]) == 1 then
  return { 'ERR', 'COPY_ACCOUNT', a[1] or '' }
end
local free = copyNum(rcall('HGET', slaveAcct, 'balance'))
if free < margin then
  if free + copyNum(rcall('HGET', slaveAcct, 'locked')) >= margin then return { 'ERR', 'MARGIN_IN_USE', '' } end
  return { 'ERR', 'INSUFFICIENT_BALANCE', m[4] }
end

copyMove(slaveAcct, subAcct, ledgerKey, margin, 1)
rcall('HSET', ledgerKey, 'feeTs', now, 'hwm', '0', 'commission', '0', 'shared', '0', 'owedFee', '0', 'owedShare', '0')
rcall('HSET', subKey, 'id', subId, 'master', m[1], 'slave', s[1], 'user', user, 'acct', a[1], 'currency', m[4],
  'margin', fmt(margin), 'initial', fmt(margin), 'opened', now, 'active', '1', 'state', 'Active', 'closed', '',
  'reason', '', 'settledEquity', '', 'profit', '', 'stopLossPercent', ARGV[5], 'takeProfitPercent', ARGV[6],
  'maxSlippagePercent', ARGV[7])
rcall('SET', claimKey, subId)
rcall('ZADD', KEYS[9], now, subId)
rcall('HSET', KEYS[11], a[1], subId)
if here then
  rcall('ZADD', KEYS[8], now, subId)
  rcall('SADD', KEYS[10], user)
else
  rcall('SADD', KEYS[13], subId)
end
copyUserEvents(KEYS[12], now, ARGV[8], subKey, true, '')
return { 'OK', subId }
