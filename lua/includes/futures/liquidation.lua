--[[
  Liquidation of one position at a mark price (DESIGN 4, docs/futures.md "Liquidation"):
  1. what it has working comes off the book;
  2. an immediate-or-cancel close at its bankruptcy price (bp) takes the book, never beyond bp; the
     payouts of its fills (margin + pnl, no taker fee) go to the insurance fund;
  3. the rest is taken over by the insurance fund at bp as far as the fund can pay the loss of
     marking it to the mark price ((bp - mark) x lots x ns for a long), paid into the pnl pool; the
     fund then holds those lots (field position:<pair> of the fund hash, signed) and the pnl pool
     carries their pnl from the mark on, as it does for every open position;
  4. the rest of that closes against opposite positions by auto-deleveraging (includes/futures/adl).
  The fund never goes below zero. Returns the lots closed.
]]
--- @include "includes/futures/context"
--- @include "includes/futures/margin"
--- @include "includes/futures/fill"
--- @include "includes/futures/close"
--- @include "includes/futures/insurance"
--- @include "includes/futures/adl"
--- @include "includes/deltas"

-- Settles what the liquidation's fills paid out so far: a gain to the fund, a deficit (only from
-- the rounding of proportional splits) covered by it as far as it holds.
local function fSettleLiquidation(ctx)
  if ctx.liqAcc > 0 then addDelta(ctx, ctx.keys.insurance, ctx.fut.cur, ctx.liqAcc) end
  if ctx.liqAcc < 0 then fCoverDeficit(ctx, -ctx.liqAcc) end
  ctx.liqAcc = 0
end

local function fLiquidate(ctx, pos, mark)
  local start = pos.openQty
  fCancelWorking(ctx, pos)
  local bp = fBankruptcyPrice(ctx, pos)
  ctx.liquidating = pos.id
  ctx.liqAcc = 0
  local c = fClose(ctx, pos, bp, 'liquidation', true)
  fSettleLiquidation(ctx)
  ctx.closeReason = 'liquidation'
  local rest = pos.openQty
  if rest > 0 then
    local perLot = (bp - mark) * ctx.fut.ns
    if pos.side == 'sell' then perLot = -perLot end
    local take = rest
    if perLot > 0 then take = math.min(rest, math.floor(fFundBalance(ctx) / perLot)) end
    if take > 0 then
      fCloseFill(ctx, c, bp, take, 0, fAccountKeys(ctx, pos.acct).hash)
      addDelta(ctx, ctx.keys.insurance, ctx.fut.cur, -perLot * take)
      addDelta(ctx, ctx.keys.pool, ctx.fut.cur, perLot * take)
      -- the fund now holds these lots (marked at the mark): its net position per pair, long positive
      local held = take
      if pos.side == 'sell' then held = -take end
      addDelta(ctx, ctx.keys.insurance, fFundPositionField(ctx), held)
      ctx.events[#ctx.events + 1] = { e = 'takeover', p = fmt(bp), q = fmt(take), pos = fmt(pos.id), u = pos.user,
        cost = fmt(perLot * take) }
      rest = rest - take
    end
  end
  if rest > 0 then fDeleverage(ctx, pos, c, bp, mark, rest) end
  fSettleLiquidation(ctx)
  ctx.closeReason = nil
  ctx.liquidating = nil
  return start - pos.openQty
end
