--[[
  Settlement of spot fills: base and quote move between wallets, each side pays its fee in the
  currency it receives (rounded up, the exchange collects it), reservations shrink as they are used.
  A buy order reserves price x amount of quote (a market buy its quoteAmount), a sell the amount of
  base; `rsv` on the order hash is what it still holds. ctx.spot carries the pair's parameters.
]]
--- @include "includes/keys"
--- @include "includes/mulDiv"
--- @include "includes/deltas"
--- @include "includes/fmt"
--- @include "includes/spot/spotOrder"
--- @include "includes/undoLog"
--- @include "includes/packedEvent"
--- @include "includes/rcall"

local function spotReserveCurrency(ctx, side)
  if side == 'buy' then return ctx.spot.quote end
  return ctx.spot.base
end

-- A resting order as matching sees it: what it still offers, and that it is the maker.
local function spotAsMaker(order)
  order.remaining = order.amount - order.filled
  order.isMaker = true
  return order
end

local function spotLoadMaker(ctx, id)
  return spotAsMaker(loadSpotOrder(ctx.P, id, nil, true))
end

-- Lots a taker can still pay for: a market buy is bounded by its quote budget.
local function spotMaxQty(ctx, taker, ticks, qty)
  if taker.budget then
    local affordable = math.floor(taker.rsv / (ticks * ctx.spot.quoteScale))
    if affordable < qty then
      if affordable == 0 then taker.budgetSpent = true end
      return affordable
    end
  end
  return qty
end

-- Quote a buyer's reservation gives up for `qty` lots filled at `ticks`: a limit buy reserved at
-- its own price, so price improvement goes back to the available balance.
local function spotBuyerReserveUsed(ctx, buyer, ticks, qty)
  if buyer.budget then return ticks * qty * ctx.spot.quoteScale end
  return buyer.price * qty * ctx.spot.quoteScale
end

-- Both sides of a fill; the fees go into the trade event `ev`.
local function spotFill(ctx, taker, maker, ticks, qty, _, ev)
  local s = ctx.spot
  local quote = ticks * qty * s.quoteScale
  local base = qty * s.baseScale
  local buyer, seller = taker, maker
  if taker.side == 'sell' then buyer, seller = maker, taker end
  local buyerRate, sellerRate = s.takerFee, s.makerFee
  if buyer.isMaker then buyerRate, sellerRate = s.makerFee, s.takerFee end
  local buyerFee = mulDivCeil(base, buyerRate, 1000000)
  local sellerFee = mulDivCeil(quote, sellerRate, 1000000)
  local used = spotBuyerReserveUsed(ctx, buyer, ticks, qty)

  -- the taker's wallet keys came in KEYS (availKey, rsvKey); a maker's are built, each once
  local P = ctx.P
  local buyerAvail = buyer.availKey or walletAvailKey(P, buyer.user)
  addDelta(ctx, buyer.rsvKey or walletRsvKey(P, buyer.user), s.quote, -used)
  addDelta(ctx, buyerAvail, s.quote, used - quote)
  addDelta(ctx, buyerAvail, s.base, base - buyerFee)
  addDelta(ctx, seller.rsvKey or walletRsvKey(P, seller.user), s.base, -base)
  addDelta(ctx, seller.availKey or walletAvailKey(P, seller.user), s.quote, quote - sellerFee)
  addDelta(ctx, ctx.keys.fees, s.base, buyerFee)
  addDelta(ctx, ctx.keys.fees, s.quote, sellerFee)

  buyer.rsv = buyer.rsv - used
  seller.rsv = seller.rsv - base
  buyer.filled, buyer.filledQuote, buyer.fee = buyer.filled + qty, buyer.filledQuote + quote, buyer.fee + buyerFee
  seller.filled, seller.filledQuote, seller.fee = seller.filled + qty, seller.filledQuote + quote, seller.fee + sellerFee

  local takerFee, makerFee = buyerFee, sellerFee
  if taker.side == 'sell' then takerFee, makerFee = sellerFee, buyerFee end
  -- the record's fields after mu (includes/matchOrder): tf|mf. Each party keeps its fee's text:
  -- where its fee so far is this fill's (its first fill), its state and reply print it no more
  local tf, mf = fmt(takerFee), fmt(makerFee)
  ev.tail = tf .. '|' .. mf
  taker.fillFee, taker.fillFeeText, maker.fillFee, maker.fillFeeText = takerFee, tf, makerFee, mf

  -- a maker that this fill empties is written once, by spotFinishMaker
  if maker.remaining > qty then
    maker.v = maker.v + 1
    local call, key = RCALL or rcallOf(), orderKey(ctx.P, maker.idText)
    undoRemember(ctx, 'h', key, 'state', maker.stateText)
    local state = spotStateText(fmt(maker.filled), fmt(maker.filledQuote),
      maker.fee == makerFee and mf or fmt(maker.fee), fmt(maker.rsv), 'partiallyFilled', ctx.ts,
      ORDER_EVENTS.version(maker.v))
    call('HSET', key, 'state', state)
    maker.stateText = state
    ctx.events[#ctx.events + 1] = ORDER_EVENTS.state(maker.idText, maker.user, state)
  end
end

-- A maker leaves the book: what it still reserves goes back to its owner's available balance.
local function spotFinishMaker(ctx, maker, status)
  local cur = spotReserveCurrency(ctx, maker.side)
  if maker.rsv > 0 then
    addDelta(ctx, walletRsvKey(ctx.P, maker.user), cur, -maker.rsv)
    addDelta(ctx, walletAvailKey(ctx.P, maker.user), cur, maker.rsv)
  end
  local call, key, openKey = RCALL or rcallOf(), orderKey(ctx.P, maker.idText), userOpenKey(ctx.P, 'spot', ctx.pair, maker.user)
  undoRemember(ctx, 'h', key, 'state', maker.stateText)
  maker.v = maker.v + 1
  -- filled whole: its amount as read is the filled text (no printing)
  local filledText = maker.amountText
  if not filledText or maker.filled ~= maker.amount then filledText = fmt(maker.filled) end
  -- its fee's text from its last fill (spotFill) when that fill's fee is all it paid
  local state = spotStateText(filledText, fmt(maker.filledQuote),
    maker.fee == maker.fillFee and maker.fillFeeText or fmt(maker.fee), '0', status, ctx.ts, ORDER_EVENTS.version(maker.v))
  call('HSET', key, 'state', state)
  -- the reply says whether it was there
  if call('SREM', openKey, maker.idText) == 1 then undoRemember(ctx, 's', openKey, maker.idText, true) end
  local events = ctx.events
  events[#events + 1] = doneEvent(maker.idText, maker.user, status)
  events[#events + 1] = ORDER_EVENTS.state(maker.idText, maker.user, state)
end

local SPOT_SETTLEMENT = {
  loadMaker = spotLoadMaker,
  maxQty = spotMaxQty,
  fill = spotFill,
  finishMaker = spotFinishMaker,
}
