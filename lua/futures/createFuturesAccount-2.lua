--[[
  Opens a futures account (DESIGN 5) with a margin currency and a leverage; it starts empty.

  Input:
    KEYS[1] futures account id counter   KEYS[2] the user's futures accounts (set)
    ARGV[1] engine key prefix   ARGV[3] name       ARGV[5] leverage (an integer's canonical decimal:
                                                           order records copy it, includes/futures/orderRecord)
    ARGV[2] user id             ARGV[4] currency   ARGV[6] timestamp, ms
    ARGV[7] '1': the account belongs to a copy subscription (flag `copy`, set for good at birth:
            no wallet transfers, no hand-placed opening orders; docs/copy-trading.md)
    ARGV[8] '1': copy trading reads the account's trading aggregates (a master's account): flag
            `stats`, set for good (includes/futures/accountStats); a copy subscription's has it too.
            Born empty, its aggregates are exact from its first order.
  Keys built while running (includes/keys, from ARGV[1]): the new account's hash (its id comes
    from the counter).
  Output:
    {'OK', account hash as a flat list}
]]
--- @include "includes/keys"
--- @include "includes/fmt"
local rcall = redis.call
local id = fmt(rcall('INCR', KEYS[1]))
local key = futuresAccountKey(ARGV[1], id)
rcall('HSET', key, 'id', id, 'user', ARGV[2], 'name', ARGV[3], 'currency', ARGV[4], 'lev', ARGV[5],
  'balance', '0', 'locked', '0', 'cts', ARGV[6])
if ARGV[7] == '1' then
  rcall('HSET', key, 'copy', '1', 'stats', '1')
elseif ARGV[8] == '1' then
  rcall('HSET', key, 'stats', '1')
end
rcall('SADD', KEYS[2], id)
return { 'OK', rcall('HGETALL', key) }
