--[[
  Opens a futures account (docs/api-contract.md#operator-routes) with a margin currency and a leverage; it starts empty.

  Registered at the user's home shard (the tag of these keys; docs/futures.md, "Futures on engine shards").

  Input:
    KEYS[1] futures account id counter (used when ARGV[9] is '')   KEYS[2] the user's futures accounts (set)
    ARGV[1] engine key prefix   ARGV[3] name       ARGV[5] leverage (an integer's canonical decimal:
                                                           order records copy it, includes/futures/orderRecord)
    ARGV[2] user id             ARGV[4] currency   ARGV[6] timestamp, ms
    ARGV[7] '1': the account belongs to a copy subscription (flag `copy`, set for good at birth:
            no wallet transfers, no hand-placed opening orders; docs/copy-trading.md)
    ARGV[8] '1': copy trading reads the account's trading aggregates (a master's account): flag
            `stats`, set for good (includes/futures/accountStats); a copy subscription's has it too.
            Born empty, its aggregates are exact from its first order.
    ARGV[9] the new account's id, drawn at random by the caller with several engine shards (its
            home's shard × 10^14 + a random number: src/futures/futures-engine.ts); '' takes the
            counter's next id (one shard)
  Keys built while running (includes/keys, from ARGV[1]): the new account's hash (its id comes
    from the counter).
  Output:
    {'OK', account hash as a flat list}
    {'TAKEN'} ARGV[9] names an account that exists: nothing changed, the caller draws again
]]
--- @include "includes/keys"
--- @include "includes/fmt"
local rcall = redis.call
local id = ARGV[9]
if id == '' then id = fmt(rcall('INCR', KEYS[1])) end
local key = futuresAccountKey(ARGV[1], id)
if ARGV[9] ~= '' and rcall('EXISTS', key) == 1 then return { 'TAKEN' } end
-- A small hash is a listpack, where Redis finds a field by scanning from its start: the fields an
-- order reads and a fill changes (includes/futures/createOrder's HMGET, a maker's HINCRBY of
-- balance and locked, the stats flag) come first, the rest after.
rcall('HSET', key, 'balance', '0', 'locked', '0', 'user', ARGV[2], 'currency', ARGV[4], 'lev', ARGV[5])
if ARGV[7] == '1' then
  rcall('HSET', key, 'stats', '1', 'copy', '1')
elseif ARGV[8] == '1' then
  rcall('HSET', key, 'stats', '1')
end
rcall('HSET', key, 'id', id, 'name', ARGV[3], 'cts', ARGV[6])
rcall('SADD', KEYS[2], id)
return { 'OK', rcall('HGETALL', key) }
