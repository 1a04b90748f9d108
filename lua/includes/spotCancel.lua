--[[
  Cancels one resting spot order of `user`: off the book, reservation released, status cancelled.
  Returns nil on success or an error code. ctx must be a context of the order's market with
  ctx.spot.base/quote set (spotContextFor).
]]
--- @include "includes/spotSettlement"
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

local function cancelSpot(ctx, id, user)
  local f = redis.call('HMGET', orderKey(ctx.P, id), 'user', 'status', 'kind')
  if not f[1] or f[1] ~= user or f[3] ~= 'spot' then return 'ORDER_NOT_FOUND' end
  if f[2] ~= 'open' and f[2] ~= 'partiallyFilled' then return 'ORDER_NOT_OPEN' end
  local maker = spotLoadMaker(ctx, id)
  unrestOrder(ctx, ownSide(maker.side), id, maker.price, maker.remaining)
  spotFinishMaker(ctx, maker, 'cancelled')
  return nil
end
