--[[
  Copies a futures account's record to an engine shard other than the one it is registered on (its
  owner's home, which its id names) before its margin first moves there (docs/futures.md, "Futures
  on engine shards"): the hash of the same name under this shard's tag then holds the account's
  margin here (`balance` free, `locked` in orders and positions), and the market scripts of this
  shard read owner, currency, leverage and flags from it as they do on the registry shard.
  Idempotent: fields already here are left as they are (the money fields above all), so a repeat
  or a late copy changes nothing.

  Input:
    KEYS[1] the account's hash on this shard
    ARGV    field, value, ... of the registry's record (owner, currency, leverage, flags, id, name, cts)
  Output:
    {'OK'}
]]
local rcall = redis.call
local acct = KEYS[1]
-- money fields first (listpack order: see createFuturesAccount), then the record
rcall('HSETNX', acct, 'balance', '0')
rcall('HSETNX', acct, 'locked', '0')
for i = 1, #ARGV, 2 do
  local f = ARGV[i]
  if f ~= 'balance' and f ~= 'locked' then rcall('HSETNX', acct, f, ARGV[i + 1]) end
end
return { 'OK' }
