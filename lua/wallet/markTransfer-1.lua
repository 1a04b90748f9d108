--[[
  Step 2 of a transfer: the relay writes this on its own connection to the sending shard, then
  makes it durable there (WAIT for a replica, or the shard's `appendfsync always`). Replication and
  the AOF are ordered, so once this write is durable the debit before it is too. A record that is
  gone was lost with its debit (a crash before it was durable): it must never be credited, and it
  is never written back here.

  Input:
    KEYS[1] the transfer record
  Output:
    {'OK', user, cur, amount, from, to, state, acct}   marked (state as it was: sent, durable or done;
                                                       acct: a futures account's margin, '' the wallet)
    {'GONE'}                                     no such transfer here
]]
local rcall = redis.call
local f = rcall('HMGET', KEYS[1], 'user', 'cur', 'amount', 'from', 'to', 'state', 'acct')
if not f[1] then return { 'GONE' } end
if f[6] == 'sent' then rcall('HSET', KEYS[1], 'state', 'durable') end
return { 'OK', f[1], f[2], f[3], f[4], f[5], f[6], f[7] or '' }
