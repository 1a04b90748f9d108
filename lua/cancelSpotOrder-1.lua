--[[
  Cancels one spot order of the caller (SPEC 4.7 rule 5).

  Input:
    KEYS[1] the order hash
    ARGV[1] engine key prefix   ARGV[3] timestamp, ms
    ARGV[2] user id             ARGV[4] stream MAXLEN
  Output:
    {'OK', order hash as a flat list}
    {'ERR', 'ORDER_NOT_FOUND' | 'ORDER_NOT_OPEN', ''}   (another user's order is not found)
  Events: one entry on the market stream: done (cancelled), book.
]]
local rcall = redis.call
--- @include "includes/spotCancel"

local orderHash = KEYS[1]
local P, user, ts, maxlen = ARGV[1], ARGV[2], ARGV[3], ARGV[4]

local pair = rcall('HGET', orderHash, 'pair')
if not pair then return { 'ERR', 'ORDER_NOT_FOUND', '' } end
local id = tonumber(rcall('HGET', orderHash, 'id'))
local ctx = spotContextFor(P, pair, ts, maxlen)
local err = cancelSpot(ctx, id, user)
if err then return { 'ERR', err, '' } end
flushDeltas(ctx)
publishEvents(ctx)
return { 'OK', rcall('HGETALL', orderHash) }
