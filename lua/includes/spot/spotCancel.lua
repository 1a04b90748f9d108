--[[
  Cancels one resting spot order of `user`: off the book, reservation released, status cancelled.
  Returns nil on success or an error code. ctx must be a context of the order's market with
  ctx.spot.base/quote set (spotContextFor).
]]
--- @include "includes/spot/spotSettlement"
--- @include "includes/book"
--- @include "includes/keys"
--- @include "includes/publishEvents"

local function spotContextFor(P, pair, ts, maxlen)
  local keys = bookKeys(P, 'spot', pair)
  local ctx = newContext(P, keys, ts, maxlen)
  local cur = redis.call('HMGET', P .. 'pair:spot:' .. pair, 'baseCurrencyCode', 'quoteCurrencyCode')
  ctx.pair = pair
  ctx.spot = { base = cur[1], quote = cur[2] }
  return ctx
end

-- `order` as loadSpotOrder gives it (nil when there is no such spot order).
local function cancelSpot(ctx, order, user)
  if not order or order.user ~= user then return 'ORDER_NOT_FOUND' end
  if order.status ~= 'open' and order.status ~= 'partiallyFilled' then return 'ORDER_NOT_OPEN' end
  local maker = spotAsMaker(order)
  unrestOrder(ctx, ownSide(maker.side), maker.id, maker.price, maker.remaining)
  spotFinishMaker(ctx, maker, 'cancelled')
  return nil
end
