--[[
  Liquidation of one position at a mark price (docs/futures.md "Liquidation"):
  1. what it has working comes off the book;
  2. an immediate-or-cancel close at its bankruptcy price (bp) takes the book, never beyond bp; the
     payouts of its fills (margin + pnl, no taker fee) go to the insurance fund;
  3. a position the fund holds on the other side closes against the rest at bp, as far as the fund
     can pay its loss there (includes/futures/insurance fFundTrade);
  4. the rest is taken over by the insurance fund at bp as far as the fund can pay the loss of
     marking it to the mark price ((bp - mark) x lots x ns for a long), paid into the pnl pool; the
     fund then holds those lots at the mark (fields position:/cost:<pair> of the fund hash);
  5. the rest closes against opposite positions by auto-deleveraging (includes/futures/adl), the
     last resort included, then against what the fund still holds on the other side whatever its loss.
  Open interest is zero-sum, so nothing is left open. The fund never goes below zero. Returns the lots closed.
]]
--- @include "includes/futures/context"
--- @include "includes/futures/margin"
--- @include "includes/futures/fill"
--- @include "includes/futures/close"
--- @include "includes/futures/insurance"
--- @include "includes/futures/adl"
--- @include "includes/deltas"

-- Settles what the liquidation's fills paid out so far: a gain to the fund, a deficit (only from
-- the rounding of proportional splits, or a counterparty past bp) covered by it as far as it holds.
local function fSettleLiquidation(ctx)
  if ctx.liqAcc > 0 then addDelta(ctx, ctx.keys.insurance, ctx.fut.cur, ctx.liqAcc) end
  if ctx.liqAcc < 0 then fCoverDeficit(ctx, -ctx.liqAcc) end
  ctx.liqAcc = 0
end

-- How many of `want` lots the fund's opposite position `fp` can close at ticks with its loss within
-- its balance (all of them when it gains).
local function fFundCanClose(ctx, fp, ticks, want)
  local q = math.min(want, fp.openQty)
  local pnl = fFundPnl(ctx, fp, ticks, q)
  if pnl + fp.margin >= 0 then return q end
  q = math.floor(q * fp.margin / -pnl)
  while q > 0 and fFundPnl(ctx, fp, ticks, q) + fp.margin < 0 do q = q - 1 end
  return q
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
  local akey = fAccountKeys(ctx, pos.acct).hash
  -- the fund buys a liquidated long (dir 1), sells a short
  local dir = 1
  if pos.side == 'sell' then dir = -1 end
  local function closeLiq(q)
    return fCloseFill(ctx, c, bp, q, 0, akey)
  end
  local function againstFund(q)
    local pnl = closeLiq(q)
    local fpnl = fFundTrade(ctx, dir * q, bp)
    ctx.events[#ctx.events + 1] = { e = 'adl', p = fmt(bp), q = fmt(q), pos = pos.idText or fmt(pos.id), u = pos.user, pnl = fmt(pnl),
      apos = 'fund', au = FUND_USER, apnl = fmt(fpnl) }
  end
  local fp = fFundPosition(ctx)
  local fundOpposite = fp and fp.side ~= pos.side
  if pos.openQty > 0 and fundOpposite then
    local q = fFundCanClose(ctx, fp, bp, pos.openQty)
    if q > 0 then againstFund(q) end
    fp = fFundPosition(ctx)
    fundOpposite = fp ~= nil
  end
  local rest = pos.openQty
  if rest > 0 and not fundOpposite then
    local perLot = (bp - mark) * ctx.fut.ns * dir
    local take = rest
    if perLot > 0 then take = math.min(rest, math.floor(fFundBalance(ctx) / perLot)) end
    if take > 0 then
      fCloseFill(ctx, c, bp, take, 0, akey)
      addDelta(ctx, ctx.keys.insurance, ctx.fut.cur, -perLot * take)
      addDelta(ctx, ctx.keys.pool, ctx.fut.cur, perLot * take)
      fFundTrade(ctx, dir * take, mark)
      ctx.events[#ctx.events + 1] = { e = 'takeover', p = fmt(bp), q = fmt(take), pos = pos.idText or fmt(pos.id), u = pos.user,
        cost = fmt(perLot * take) }
      rest = rest - take
    end
  end
  local liq = { id = pos.id, user = pos.user, side = pos.side }
  if rest > 0 then rest = rest - fDeleverage(ctx, liq, bp, mark, rest, closeLiq) end
  if rest > 0 and fundOpposite then
    againstFund(math.min(rest, fp.openQty))
    rest = pos.openQty
  end
  if rest > 0 then
    -- positions the IOC's fills opened since the queue was built
    ctx.adlQueues = nil
    fDeleverage(ctx, liq, bp, mark, rest, closeLiq)
  end
  fSettleLiquidation(ctx)
  ctx.closeReason = nil
  ctx.liquidating = nil
  return start - pos.openQty
end
