--[[
  Futures settlement as includes/matchOrder's callbacks (FUTURES_SETTLEMENT): how much a taker can
  pay for, a fill of both sides, and a maker leaving the book. A resting opening order reserves
  fReserve(price, lots) from the free balance; it goes back when the order stops resting.
]]
--- @include "includes/futures/context"
--- @include "includes/futures/margin"
--- @include "includes/futures/fill"
--- @include "includes/mulDiv"
--- @include "includes/deltas"
--- @include "includes/safeInt"
--- @include "includes/fmt"
--- @include "includes/matchOrder"

-- Extra money an opening order needs from the free balance to fill q lots at ticks.
local function fOpenNeed(ctx, o, ticks, q)
  local n = fNotional(ctx, ticks, q)
  return fMargin(n, o.lev) + mulDivCeil(n, ctx.fut.taker, 1000000) + fReserveAfter(ctx, o, q) - o.rsv
end

local function fMaxQty(ctx, taker, ticks, qty)
  local perLot = ticks * ctx.fut.ns
  local safeMax = fMargin(MAX_SAFE, perLot) -- floor(MAX_SAFE / perLot)
  if qty > safeMax then qty = safeMax end
  if taker.role == 'close' then
    if qty > taker.posObj.openQty then qty = taker.posObj.openQty end
    return qty
  end
  local free = fAcctField(ctx, taker.acct, 'balance')
  if fOpenNeed(ctx, taker, ticks, qty) <= free then return qty end
  local lo, hi = 0, qty
  while lo < hi do
    local mid = math.floor((lo + hi + 1) / 2)
    if fOpenNeed(ctx, taker, ticks, mid) <= free then lo = mid else hi = mid - 1 end
  end
  taker.budgetSpent = true
  return lo
end

-- Both sides of a fill; their fields go into the trade event `ev`.
local function fFill(ctx, taker, maker, ticks, qty, _, ev)
  local tf, tpnl, tpos = fPartyFill(ctx, taker, ticks, qty, true)
  local mf, mpnl, mpos = fPartyFill(ctx, maker, ticks, qty, false)
  local tt = '2'
  if ctx.liquidating and ctx.liquidating == tpos.id then tt = '3' end
  ev.tf, ev.mf, ev.tpnl, ev.mpnl = fmt(tf), fmt(mf), fmt(tpnl), fmt(mpnl)
  -- a fee and its text, which the record reuses while the position's fee is this one (its first fill)
  tpos.feeOf, tpos.feeText, mpos.feeOf, mpos.feeText = tf, ev.tf, mf, ev.mf
  ev.tpos, ev.mpos = tpos.idText or fmt(tpos.id), mpos.idText or fmt(mpos.id)
  ev.tl, ev.ml, ev.tt = tpos.side == 'buy' and '1' or '0', mpos.side == 'buy' and '1' or '0', tt
  -- to/mo: each position's open quantity after the fill (copy trading mirrors a partial close as a fraction)
  -- (a new position's open quantity is the fill's, already printed)
  ev.to, ev.mo = tpos.openQty == qty and ev.q or fmt(tpos.openQty), mpos.openQty == qty and ev.q or fmt(mpos.openQty)
end

-- An opening order stops resting: its reservation goes back; unfilled it is cancelled.
local function fReleaseRest(ctx, o)
  if o.rsv > 0 then
    local akey = fAccountKeys(ctx, o.acct).hash
    addDelta(ctx, akey, 'locked', -o.rsv)
    addDelta(ctx, akey, 'balance', o.rsv)
    o.rsv = 0
  end
  if o.filled == 0 then o.status = FST.CANCELLED end
  o.resting = '0'
  fDirty(ctx, o)
end

local function fFinishMaker(ctx, maker, status)
  if maker.role == 'close' then
    maker.resting = '0'
    if maker.posObj.closeOrd == (maker.idText or fmt(maker.id)) then
      maker.posObj.closeOrd = ''
      fDirty(ctx, maker.posObj)
    end
    fDirty(ctx, maker)
  else
    fReleaseRest(ctx, maker)
  end
  ctx.events[#ctx.events + 1] = { e = 'done', id = maker.idText or fmt(maker.id), u = maker.user, status = status }
end

local FUTURES_SETTLEMENT = {
  loadMaker = fLoad,
  maxQty = fMaxQty,
  fill = fFill,
  finishMaker = fFinishMaker,
}
