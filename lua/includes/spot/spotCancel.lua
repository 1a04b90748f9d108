--[[
  Cancels one resting spot order of `user`: off the book, reservation released, status cancelled.
  Returns nil on success or an error code. ctx must be a context of the order's market with
  ctx.spot.base/quote set (spotContextFor).

  KEYS[1..16] of both cancel scripts, in this order (src/spot/spot-engine.ts builds them):
    KEYS[1..12] the market's keys (includes/spot/spotMarketKeys; counters, last price and fees are
      not touched by a cancel)
    KEYS[13] the pair hash                     KEYS[15] user's available balances (hash by currency)
    KEYS[14] user's open orders on the pair    KEYS[16] user's reserved balances (hash by currency)
  The order hashes and the user's keys are written by includes/spot/spotSettlement, which builds
  the same names for any order's owner (includes/keys).
]]
--- @include "includes/spot/spotSettlement"
--- @include "includes/book"
--- @include "includes/publishEvents"
--- @include "includes/spot/spotMarketKeys"
--- @include "includes/userEvents"

local function spotContextFor(KEYS, P, pair, ts, maxlen)
  local ctx = newContext(P, spotMarketKeys(KEYS), ts, maxlen)
  -- the wallet fields flushDeltas writes, for the private stream's balances (userEvents.walletStates)
  ctx.written = {}
  local cur = redis.call('HMGET', KEYS[13], 'baseCurrencyCode', 'quoteCurrencyCode')
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
