--[[
  Cancels one spot order of the caller (order-book rule 5, docs/api-contract.md#order-book-rules).

  Input:
    KEYS[1..16] the market's and the user's keys (includes/spot/spotCancel lists them)
    KEYS[17] the order hash
    ARGV[1] engine key prefix   ARGV[4] timestamp, ms
    ARGV[2] user id             ARGV[5] stream MAXLEN
    ARGV[3] order id            ARGV[6] the order's pair code (the caller reads it: it never changes)
  Keys built while running: the shard's balance sequence (includes/userEvents); otherwise none
    (includes/spot/spotSettlement writes the order hash and the user's keys under the names it
    builds, the same as KEYS[17] and KEYS[14..16]).
  Output:
    {'OK', id, order hash as a flat list}   (the record layout of includes/spotOrder)
    {'ERR', 'ORDER_NOT_FOUND' | 'ORDER_NOT_OPEN', ''}   (another user's order is not found)
  Events: one entry on the market stream: done (cancelled), st, bal per currency of the user's
  wallet it moved (includes/userEvents walletStates), book.
]]
local rcall = redis.call
--- @include "includes/spot/spotCancel"

local orderHash = KEYS[17]
local P, user, id, ts, maxlen, pair = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]

local order = loadSpotOrder(P, id, orderHash)
if not order or order.pair ~= pair then return { 'ERR', 'ORDER_NOT_FOUND', '' } end
local ctx = spotContextFor(KEYS, P, pair, ts, maxlen)
local err = cancelSpot(ctx, order, user)
if err then return { 'ERR', err, '' } end
flushDeltas(ctx)
userEvents.walletStates(ctx)
publishEvents(ctx)
return { 'OK', id, rcall('HGETALL', orderHash) }
