--[[
  Closing a position against the book: what it still has working comes off first (fCancelWorking),
  then a close order takes the book (fClose), at market or at a limit.
]]
--- @include "includes/futures/context"
--- @include "includes/futures/settlement"
--- @include "includes/book"
--- @include "includes/matchOrder"
--- @include "includes/fmt"
--- @include "includes/packedEvent"

-- Takes whatever a position still has working off the book: the unfilled rest of its opening
-- order and a resting close order.
local function fCancelWorking(ctx, pos)
  local member = fmt016(pos.id)
  local ownBook = ownSide(pos.side)
  if pos.remaining > 0 and redis.call('ZSCORE', ctx.keys.book[ownBook], member) then
    unrestOrder(ctx, ownBook, pos.id, pos.price, pos.remaining)
    fReleaseRest(ctx, pos)
    ctx.events[#ctx.events + 1] = doneEvent(pos.idText or fmt(pos.id), pos.user, 'cancelled')
  elseif pos.rsv > 0 then
    fReleaseRest(ctx, pos)
  end
  if pos.closeOrd ~= '' then
    local c = fLoad(ctx, pos.closeOrd)
    if c and c.remaining > 0 then
      unrestOrder(ctx, ownSide(c.side), c.id, c.price, c.remaining)
      c.resting = '0'
      fDirty(ctx, c)
      ctx.events[#ctx.events + 1] = doneEvent(fmt(c.id), c.user, 'cancelled')
    end
    pos.closeOrd = ''
    fDirty(ctx, pos)
  end
end

-- A new close order (reduce-only, the position's opposite side) for `lots` of it (nil or more than
-- it holds: its whole open quantity).
local function fNewCloseOrder(ctx, pos, limit, reason, lots)
  local id = redis.call('INCR', ctx.keys.orderIds)
  local side = 'sell'
  if pos.side == 'sell' then side = 'buy' end
  local q = pos.openQty
  if lots and lots > 0 and lots < q then q = lots end
  local c = { id = id, role = 'close', user = pos.user, acct = pos.acct, side = side, price = limit, limit = limit,
    amount = q, filled = 0, remaining = q, stp = 0, pos = pos.idText or fmt(pos.id), posObj = pos,
    pair = ctx.pair, kind = 'futures', isMarket = limit == nil, resting = '0', closeReason = reason }
  c.fixed = fFixedText(c)
  ctx.objs[id] = c
  fDirty(ctx, c)
  return c
end

-- Closes (part of) a position against the book: a close order as taker, market when limit is nil,
-- for `lots` (nil: all of it; a partial close leaves the rest open with its TP/SL). A limit close
-- that does not fill at once rests, unless ioc (immediate or cancel: a liquidation).
-- Returns the close order.
local function fClose(ctx, pos, limit, reason, ioc, lots)
  local c = fNewCloseOrder(ctx, pos, limit, reason, lots)
  ctx.closeReason = reason
  local outcome = matchOrder(ctx, c, FUTURES_SETTLEMENT)
  if limit and not ioc and outcome == 'stopped' and c.remaining > 0 and pos.openQty > 0 then
    restOrder(ctx, ownSide(c.side), c.id, limit, c.remaining)
    c.resting = '1'
    pos.closeOrd = fmt(c.id)
    fDirty(ctx, pos)
  end
  ctx.closeReason = nil
  return c
end
