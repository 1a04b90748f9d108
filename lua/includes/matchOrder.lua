--[[
  Price-time matching of an incoming order against the opposite side (order-book rules 1, 2, 4, docs/api-contract.md#order-book-rules),
  shared by every market kind. The kind supplies its settlement as callbacks:
    settle.loadMaker(ctx, id)                 -> { id, user, acct (futures), remaining, stp, ... } from the order hash
    settle.maxQty(ctx, taker, ticks, qty)     -> lots the taker can still pay for at `ticks` (<= qty)
    settle.fill(ctx, taker, maker, ticks, qty, tradeId, ev) -> adds its fields to the trade event ev:
      tail, the trade history record's fields after mu, '|'-joined (spot tf|mf, futures
      tf|mf|tpnl|mpnl|tpos|mpos|tl|ml|tt: includes/tradeHistory), and on futures om, '|to|mo', the
      event's fields after the record (includes/packedEvent). Text, not a field each: the event
      goes out packed, and a table of twenty fields cost its keys more than the concatenation
    settle.finishMaker(ctx, maker, status)    -> a maker leaving the book: 'filled' or 'expired'
  taker: { id, user, acct (futures), side = 'buy'|'sell', limit = ticks or nil (market), remaining = lots, stp }.
  An order may carry `idText`, its id already printed, which the events then use, and `amountText`
  (with `amount`), which a fill of its whole amount uses.
  Trade ids: one INCR of ctx.keys.tradeIds each, or, when the caller hands its call's ids out in
  fewer commands, from ctx.ids (includes/idCounter; the caller writes the counter).

  Self-trade prevention modes are bit flags, NONE 0, EXPIRE_TAKER 1, EXPIRE_MAKER 2, EXPIRE_BOTH 3,
  so the stricter intent of the two orders is their bitwise OR (TAKER against MAKER gives BOTH).
  It applies between two orders of the same account (docs/futures.md, docs/spot.md): a futures
  order's `acct`; a spot order carries none, its account is its user's wallet (`user`).

  Returns 'done' (taker filled), 'expired' (self-trade prevention ended the taker) or 'stopped'
  (the book ran out, the limit was reached, or the taker's budget cannot buy one more lot).
]]
--- @include "includes/book"
--- @include "includes/fmt"
--- @include "includes/undoLog"
--- @include "includes/idCounter"

-- the modes' bits (one table: the library's top level holds at most 200 locals)
local STP_EXPIRE = { TAKER = 1, MAKER = 2 }

-- makerId, ticks, member, priceText: the opposite side's best order as the caller read it just
-- before (bestOrder's four values) and found crossing, so the first look at the book costs no second
-- ZRANGE nor test; nil to read it here. Passed as values: a table of them was one more table per order.
-- The fields read on every pass (the side, the limit, the remaining lots, the events) are locals:
-- a field's read costs about twice a local's.
local function matchOrder(ctx, taker, settle, makerId, ticks, member, priceText)
  local side, limit, events = taker.side, taker.limit, ctx.events
  local opp = OPPOSITE_SIDE[side]
  local peeked = makerId ~= nil
  local left = taker.remaining
  while left > 0 do
    if peeked then
      peeked = false
    else
      makerId, ticks, member, priceText = bestOrder(ctx, opp)
      if not makerId or not crosses(side, limit, ticks) then return 'stopped' end
    end
    local maker = settle.loadMaker(ctx, makerId)
    local mode = 0
    -- a maker's stp of 0 may be absent (includes/futures/context fLoad); one user's two futures
    -- accounts trade with each other like any two accounts
    if (maker.acct or maker.user) == (taker.acct or taker.user) then mode = bit.bor(taker.stp, maker.stp or 0) end
    local makerLeft = maker.remaining
    if mode ~= 0 then
      if bit.band(mode, STP_EXPIRE.MAKER) ~= 0 then
        unrestOrder(ctx, opp, makerId, ticks, makerLeft, member, priceText)
        settle.finishMaker(ctx, maker, 'expired')
      end
      if bit.band(mode, STP_EXPIRE.TAKER) ~= 0 then return 'expired' end
    else
      local qty = left
      if makerLeft < qty then qty = makerLeft end
      qty = settle.maxQty(ctx, taker, ticks, qty)
      if qty <= 0 then return 'stopped' end
      local tradeId
      local ids = ctx.ids
      if ids then
        tradeId = idsNextTrade(ids, ctx.keys.tradeIds)
      else
        if ctx.undo then undoRemember(ctx, 'k', ctx.keys.tradeIds) end
        tradeId = redis.call('INCR', ctx.keys.tradeIds)
      end
      -- a taker filled whole at once: its amount as the caller has it (amountText, futures) is the fill's
      local qtyText
      if qty == taker.amount and taker.amountText then qtyText = taker.amountText else qtyText = fmt(qty) end
      -- the fields settle.fill adds are named here as nil, which sizes the table for them (16 slots):
      -- added after it is made they would rehash it
      local ev = { e = 'trade', id = fmt(tradeId), p = priceText, q = qtyText, side = side,
        tk = taker.idText or fmt(taker.id), mk = maker.idText or fmt(maker.id), tu = taker.user, mu = maker.user,
        tail = nil, om = nil }
      settle.fill(ctx, taker, maker, ticks, qty, tradeId, ev)
      left = left - qty
      taker.remaining = left
      makerLeft = makerLeft - qty
      maker.remaining = makerLeft
      if makerLeft == 0 then
        unrestOrder(ctx, opp, makerId, ticks, qty, member, priceText, qtyText)
        settle.finishMaker(ctx, maker, 'filled')
      else
        changeLevel(ctx, opp, ticks, -qty, priceText, '-' .. qtyText)
      end
      ctx.lastTicks = ticks
      -- after what the fill and the maker's end added: the events' order is the entry's
      events[#events + 1] = ev
    end
  end
  return 'done'
end
