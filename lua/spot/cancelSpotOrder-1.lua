--[[
  Cancels one spot order of the caller (SPEC 4.7 rule 5).

  Input:
    KEYS[1] the order hash
    ARGV[1] engine key prefix   ARGV[4] timestamp, ms
    ARGV[2] user id             ARGV[5] stream MAXLEN
    ARGV[3] order id
  Output:
    {'OK', id, order hash as a flat list}   (the record layout of includes/spotOrder)
    {'ERR', 'ORDER_NOT_FOUND' | 'ORDER_NOT_OPEN', ''}   (another user's order is not found)
  Events: one entry on the market stream: done (cancelled), book.
]]
local rcall = redis.call
--- @include "includes/spot/spotCancel"

local orderHash = KEYS[1]
local P, user, id, ts, maxlen = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]

local order = loadSpotOrder(P, id)
if not order then return { 'ERR', 'ORDER_NOT_FOUND', '' } end
local ctx = spotContextFor(P, order.pair, ts, maxlen)
local err = cancelSpot(ctx, order, user)
if err then return { 'ERR', err, '' } end
flushDeltas(ctx)
publishEvents(ctx)
return { 'OK', id, rcall('HGETALL', orderHash) }
