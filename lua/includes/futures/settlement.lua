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
--- @include "includes/packedEvent"

-- Extra money an opening order needs from the free balance to fill q lots at ticks.
local function fOpenNeed(ctx, o, ticks, q)
  local n = fNotional(ctx, ticks, q)
  return fMargin(n, o.lev) + mulDivCeil(n, ctx.fut.taker, 1000000) + fReserveAfter(ctx, o, q) - o.rsv
end

-- Lots the taker can pay for at ticks (at most qty). An opening taker is a new order of
-- includes/futures/createOrder, whose margin check found its free balance F >= fReserve(C, A) for
-- its amount A at C: a limit buy's price, which no fill passes; a sell's price or, when the best bid
-- was above it, that bid, from which its fills go down. A limit order can then pay for every fill
-- and takes no fOpenNeed: with fills q_i at t_i <= C, Q lots in all so far, and the rest A - Q
-- reserved at its price P <= C, the money taken (sum of floor(n_i / lev) + fee_i, plus fReserve(P,
-- A - Q)) is at most fReserve(C, A): the margin floors add up to at most the whole's, the notionals
-- to at most C x A; each split of the fee (a ceiling, monotonic for a rate >= 0, which pair rules
-- enforce and the test keeps) adds at most one unit, at most Q of them, which the Q lots' units of
-- fReserve hold. Its free balance is F less those: nothing else moves the taker's account while it
-- matches but a maker of the same user, after whose fill (fFill) the later fills are checked in full.
-- Its notional is below fNotional(C, A), which createOrder keeps below MAX_SAFE / 3: qty is within
-- safeMax too. A market order (checked at the worst price its walk reached: a sell fills above it)
-- takes the full check.
local function fMaxQty(ctx, taker, ticks, qty)
  if not taker.isMarket and taker.role == 'open' and not taker.fullChecks and ctx.fut.taker >= 0 then return qty end
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

-- Both sides of a fill; their fields go into the trade event `ev` (tail and om: includes/matchOrder).
local function fFill(ctx, taker, maker, ticks, qty, _, ev)
  -- a maker of the taker's user may move the taker's account: fMaxQty checks its later fills in full
  if maker.user == taker.user then taker.fullChecks = true end
  local n = fNotional(ctx, ticks, qty)
  local tf, tpnl, tpos = fPartyFill(ctx, taker, ticks, qty, true, n)
  local mf, mpnl, mpos = fPartyFill(ctx, maker, ticks, qty, false, n)
  -- both fees to the fees pot, in one change
  addDelta(ctx, ctx.keys.fees, ctx.fut.cur, tf + mf)
  local tt = '2'
  if ctx.liquidating and ctx.liquidating == tpos.id then tt = '3' end
  -- an opening side's pnl is 0: its text without fmt's call
  local tfText, mfText, qText = fmt(tf), fmt(mf), ev.q
  -- a fee and its text, which the record reuses while the position's fee is this one (its first fill)
  tpos.feeOf, tpos.feeText, mpos.feeOf, mpos.feeText = tf, tfText, mf, mfText
  -- the record's fields after mu (includes/matchOrder): tf|mf|tpnl|mpnl|tpos|mpos|tl|ml|tt
  ev.tail = tfText .. '|' .. mfText .. '|' .. (tpnl == 0 and '0' or fmt(tpnl)) .. '|' .. (mpnl == 0 and '0' or fmt(mpnl))
    .. '|' .. (tpos.idText or fmt(tpos.id)) .. '|' .. (mpos.idText or fmt(mpos.id)) .. '|'
    .. (tpos.side == 'buy' and '1' or '0') .. '|' .. (mpos.side == 'buy' and '1' or '0') .. '|' .. tt
  -- |to|mo: each position's open quantity after the fill (copy trading mirrors a partial close as a
  -- fraction); a new position's is the fill's, already printed
  local tOpen, mOpen = tpos.openQty, mpos.openQty
  ev.om = '|' .. (tOpen == qty and qText or fmt(tOpen)) .. '|' .. (mOpen == qty and qText or fmt(mOpen))
end

-- An opening order stops resting: its reservation goes back; unfilled it is cancelled.
local function fReleaseRest(ctx, o)
  if o.rsv > 0 then
    moveDelta(ctx, fAccountKeys(ctx, o.acct).hash, 'locked', 'balance', o.rsv)
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
  ctx.events[#ctx.events + 1] = doneEvent(maker.idText or fmt(maker.id), maker.user, status)
end

local FUTURES_SETTLEMENT = {
  loadMaker = fLoad,
  maxQty = fMaxQty,
  fill = fFill,
  finishMaker = fFinishMaker,
}
