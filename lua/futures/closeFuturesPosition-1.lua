--[[
  Closes a position or cancels an order that is not filled (SPEC 4.3 close). An unfilled order is
  cancelled and its reservation released (status 30). A position (status 50) first loses whatever
  it still has working (the unfilled rest of its order, an earlier resting close order), then is
  closed against the book: at market (the unfilled rest is killed, so a thin book closes it in
  part), or at `limit` (what does not fill at once rests as the position's close order).

  Input:
    KEYS[1] the order hash
    ARGV[1] engine key prefix   ARGV[4] limit price, ticks ('' for market)
    ARGV[2] user id             ARGV[5] timestamp, ms
    ARGV[3] isMarket 0 | 1      ARGV[6] stream MAXLEN
  Output:
    {'OK', order hash as a flat list}
    {'ERR', 'ORDER_NOT_FOUND' | 'ORDER_NOT_ACTIVE' | 'NO_LIQUIDITY', ''}   nothing changed
  Events: one entry on the futures market stream: done, trade*, book*.
]]
local rcall = redis.call
--- @include "includes/futures/context"
--- @include "includes/futures/close"
--- @include "includes/futures/flush"
--- @include "includes/book"

local orderHash = KEYS[1]
local P, user, isMarket, limit, ts, maxlen = ARGV[1], ARGV[2], ARGV[3] == '1', tonumber(ARGV[4]), ARGV[5], ARGV[6]

local f = rcall('HMGET', orderHash, 'pair', 'kind', 'role', 'user', 'id')
if not f[1] or f[2] ~= 'futures' or f[3] ~= 'open' or f[4] ~= user then return { 'ERR', 'ORDER_NOT_FOUND', '' } end
local ctx = futuresContextFor(P, f[1], ts, maxlen)
local pos = fLoad(ctx, f[5])

if pos.status == FST.CREATED then
  fCancelWorking(ctx, pos)
  fCommit(ctx)
  return { 'OK', rcall('HGETALL', orderHash) }
end
if pos.status ~= FST.IN_POSITION then return { 'ERR', 'ORDER_NOT_ACTIVE', pos.status } end

if isMarket then
  limit = nil
  -- someone other than the position's own resting order must be there to close against
  local top = rcall('ZRANGE', ctx.keys.book[ownSide(pos.side)], 0, 1)
  local other = false
  for _, m in ipairs(top) do
    if tonumber(m) ~= pos.id then other = true end
  end
  if not other then return { 'ERR', 'NO_LIQUIDITY', '' } end
end

fCancelWorking(ctx, pos)
fClose(ctx, pos, limit, 'close')
fCommit(ctx)
return { 'OK', rcall('HGETALL', orderHash) }
