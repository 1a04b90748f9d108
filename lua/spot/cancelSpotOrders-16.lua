--[[
  Cancels every open spot order the caller holds on one pair, however it was entered
  (order-book rule 5, docs/api-contract.md#order-book-rules). One atomic step, one event entry.

  Input:
    KEYS[1..16] the market's and the user's keys (includes/spot/spotCancel lists them; KEYS[14] is
      the user's open orders on the pair, a set of ids)
    ARGV[1] engine key prefix   ARGV[4] timestamp, ms
    ARGV[2] user id             ARGV[5] stream MAXLEN
    ARGV[3] pair code
  Keys built while running (includes/keys, from ARGV[1]): each open order's hash; the shard's
    balance sequence (includes/userEvents).
  Output:
    {'OK', {id, ...}} the cancelled order ids, ascending
  Events: one entry on the market stream: done (cancelled) and st per order, bal per currency of
  the user's wallet they moved (includes/userEvents walletStates), book.
]]
local rcall = redis.call
--- @include "includes/spot/spotCancel"

local openKey = KEYS[14]
local P, user, pair, ts, maxlen = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]

local ids = rcall('SMEMBERS', openKey)
table.sort(ids, function(a, b) return tonumber(a) < tonumber(b) end)
local ctx = spotContextFor(KEYS, P, pair, ts, maxlen)
local cancelled = {}
for _, id in ipairs(ids) do
  if not cancelSpot(ctx, loadSpotOrder(P, id), user) then cancelled[#cancelled + 1] = id end
end
flushDeltas(ctx)
userEvents.walletStates(ctx)
publishEvents(ctx)
return { 'OK', cancelled }
