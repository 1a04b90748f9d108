--[[
  The insurance fund unwinds what it took over (docs/futures.md "Insurance fund"), in every
  liquidation sweep of the pair, the fund's position treated as a position whose margin is the
  fund's whole balance:
  1. an immediate-or-cancel order into the book at prices no worse for the fund than its bankruptcy
     price (so its balance stays >= 0) nor than the mark less (long) / plus (short) the maintenance
     rate (so it does not hand its balance to a bid far from the mark); the fund pays no fee, the
     makers theirs; trade type 3, taker `fund` of user $insurance;
  2. when the mark is past the bankruptcy price of what is left (its loss at the mark more than the
     fund holds), auto-deleveraging closes it at that price (includes/futures/adl, both passes).
  The fund has no maintenance margin: a takeover spends what the fund can pay, so it holds its lots
  with its balance down to zero and is deleveraged only once the mark moves against it beyond that.
]]
--- @include "includes/futures/context"
--- @include "includes/futures/margin"
--- @include "includes/futures/settlement"
--- @include "includes/futures/fill"
--- @include "includes/futures/insurance"
--- @include "includes/futures/adl"
--- @include "includes/matchOrder"
--- @include "includes/mulDiv"
--- @include "includes/deltas"
--- @include "includes/fmt"

-- includes/matchOrder's callbacks for the fund as taker (taker.dir: 1 buys, -1 sells).
local FUND_SETTLEMENT = {
  loadMaker = fLoad,
  maxQty = function(_, _, _, qty) return qty end,
  fill = function(ctx, taker, maker, ticks, qty, _, ev)
    local pnl = fFundTrade(ctx, taker.dir * qty, ticks)
    local mf, mpnl, mpos = fPartyFill(ctx, maker, ticks, qty, false)
    -- the maker's fee to the fees pot (the fund pays none)
    addDelta(ctx, ctx.keys.fees, ctx.fut.cur, mf)
    local left = fFundPosition(ctx)
    -- tf|mf|tpnl|mpnl|tpos|mpos|tl|ml|tt and |to|mo (includes/matchOrder): the fund's side is 'fund'
    ev.tail = '0|' .. fmt(mf) .. '|' .. fmt(pnl) .. '|' .. fmt(mpnl) .. '|fund|' .. (mpos.idText or fmt(mpos.id)) .. '|'
      .. (taker.side == 'buy' and '1' or '0') .. '|' .. (mpos.side == 'buy' and '1' or '0') .. '|3'
    ev.om = '|' .. fmt(left and left.openQty or 0) .. '|' .. fmt(mpos.openQty)
  end,
  finishMaker = fFinishMaker,
}

local function fUnwindFund(ctx, mark)
  local fp = fFundPosition(ctx)
  if not fp then return end
  local bp, mmr = fBankruptcyPrice(ctx, fp), ctx.fut.mmr
  local taker = { id = 'fund', idText = 'fund', user = FUND_USER, stp = 0, remaining = fp.openQty,
    side = 'sell', dir = -1, limit = math.max(bp, mulDivCeil(mark, 1000000 - mmr, 1000000)) }
  if fp.side == 'sell' then
    taker.side, taker.dir, taker.limit = 'buy', 1, math.min(bp, mulDivFloor(mark, 1000000 + mmr, 1000000))
  end
  matchOrder(ctx, taker, FUND_SETTLEMENT)
  fp = fFundPosition(ctx)
  if not fp then return end
  bp = fBankruptcyPrice(ctx, fp)
  if (fp.side == 'buy' and mark >= bp) or (fp.side == 'sell' and mark <= bp) then return end
  ctx.adlQueues = nil -- the fills above may have opened positions
  ctx.closeReason = 'adl'
  fDeleverage(ctx, { id = 'fund', idText = 'fund', user = FUND_USER, side = fp.side }, bp, mark, fp.openQty,
    function(q) return fFundTrade(ctx, taker.dir * q, bp) end)
  ctx.closeReason = nil
end
