--[[
  Second step of a copy start whose follower's home is not shard 0 (docs/copy-trading.md,
  "Subscriptions at the follower's home"): on shard 0, where the master's side lives, adds the
  subscription (started at the follower's home by startCopy) to the master's subscriptions, the
  follower to the follower users and its account to the account -> subscription map, all only while
  the master is Active, in one step. A master that is closing or closed (or gone) links nothing and
  answers MASTER_CLOSED: the caller then finishes the subscription at home (a master close lists
  only linked subscriptions, so none is missed either way). Idempotent: a repeat adds nothing new
  (ZADD NX keeps the first score).

  Input:
    KEYS[1] master record hash   KEYS[2] master's subscriptions (zset)   KEYS[3] follower users (set)
    KEYS[4] subscription accounts (hash: account id -> subscription id)
    ARGV[1] subscription id   ARGV[2] opened, ms   ARGV[3] follower user id   ARGV[4] the subscription's account id
  Output:
    {'OK', '1' linked now | '0' linked before}
    {'ERR', 'MASTER_CLOSED', ''} nothing changed
]]
local rcall = redis.call
if rcall('HGET', KEYS[1], 'status') ~= 'Active' then
  if rcall('ZSCORE', KEYS[2], ARGV[1]) then return { 'OK', '0' } end
  return { 'ERR', 'MASTER_CLOSED', '' }
end
local added = rcall('ZADD', KEYS[2], 'NX', ARGV[2], ARGV[1])
rcall('SADD', KEYS[3], ARGV[3])
rcall('HSET', KEYS[4], ARGV[4], ARGV[1])
return { 'OK', tostring(added) }
