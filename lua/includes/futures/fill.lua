--[[
  One side of a futures fill: the money and the order or position it moves. An opening order
  locks margin and pays its fee from the free balance, and becomes (or grows) its position. A close
  order releases a share of its position's margin with the realized pnl, net of its fee; that pnl is
  paid from (or into) the pnl pool, the counterparty of realized pnl. Money that leaves a position
  goes to `fees`, the insurance fund or the pnl pool: the sum of all of them and of every account
  never changes (docs/futures.md).
]]
--- @include "includes/futures/context"
--- @include "includes/futures/margin"
--- @include "includes/futures/insurance"
--- @include "includes/mulDiv"
--- @include "includes/deltas"
--- @include "includes/fmt"
--- @include "includes/packedEvent"

-- A close order's side of a fill: q lots of its position closed at ticks, for fee (which the caller
-- that settles the fill adds to the fees pot: fPartyFill).
local function fCloseFill(ctx, o, ticks, q, fee, akey)
  local f = ctx.fut
  local pos = o.posObj
  local portion, mrel = pos.cost, pos.margin
  if q < pos.openQty then
    portion = mulDivFloor(pos.cost, q, pos.openQty)
    mrel = mulDivFloor(pos.margin, q, pos.openQty)
  end
  local pnl = (ticks * q - portion) * f.ns
  if pos.side == 'sell' then pnl = -pnl end
  local payout = mrel + pnl - fee
  addDelta(ctx, akey, 'locked', -mrel)
  addDelta(ctx, ctx.keys.pool, f.cur, -pnl)
  if ctx.liquidating == pos.id then
    -- liquidation: the payouts of its fills add up (never below zero at or above bankruptcy) and
    -- go to the insurance fund when it ends (includes/futures/liquidation)
    ctx.liqAcc = ctx.liqAcc + payout
  else
    local cover = 0
    if payout < 0 then cover = -payout end
    addDelta(ctx, akey, 'balance', payout + cover)
    fCoverDeficit(ctx, cover)
  end
  pos.openQty = pos.openQty - q
  pos.cost = pos.cost - portion
  pos.margin = pos.margin - mrel
  pos.rpnl = pos.rpnl + pnl
  pos.fee = pos.fee + fee
  if pos.openQty == 0 then
    pos.status = FST.CLOSED
    pos.closeOrd = ''
    pos.closeReason = ctx.closeReason or 'close'
    ctx.events[#ctx.events + 1] = doneEvent(pos.idText or fmt(pos.id), pos.user, 'closed')
  end
  fDirty(ctx, pos)
  o.filled = o.filled + q
  fDirty(ctx, o)
  return pnl, pos
end

-- One side of a fill, of notional n (fNotional(ticks, q): both sides share it; nil computes it).
-- Returns fee, realized pnl, position. An opening order's side (q lots at ticks join its position)
-- is written here, its one caller: a call fewer per side. The fee leaves the side's account here;
-- the caller that settles the fill adds its fees to the fees pot (one change for both sides).
local function fPartyFill(ctx, o, ticks, q, isTaker, n)
  local f = ctx.fut
  n = n or fNotional(ctx, ticks, q)
  local close = o.role == 'close'
  local fee
  if not isTaker then
    fee = mulDivCeil(n, f.maker, 1000000)
  elseif close and ctx.liquidating == o.posObj.id then
    -- a liquidation pays no taker fee: what is left of its margin goes to the insurance fund instead
    fee = 0
  else
    fee = mulDivCeil(n, f.taker, 1000000)
  end
  -- the account's keys as the command knows them (fAccountKeys builds them the first time)
  local akey = (ctx.accounts[o.acct] or fAccountKeys(ctx, o.acct)).hash
  if close then
    local pnl, pos = fCloseFill(ctx, o, ticks, q, fee, akey)
    return fee, pnl, pos
  end
  -- a fill of all its remaining lots (the commonest) leaves nothing reserved: no fReserveAfter call
  local newRsv = 0
  if o.remaining > q then newRsv = fReserveAfter(ctx, o, q) end
  local m = fMargin(n, o.lev)
  -- the margin and the reservation's change go from the balance to locked, the fee out of the balance
  moveDelta(ctx, akey, 'balance', 'locked', m + newRsv - o.rsv, fee)
  local tq = ticks * q
  o.rsv = newRsv
  o.filled = o.filled + q
  o.cost = o.cost + tq
  o.ecost = o.ecost + tq
  o.openQty = o.openQty + q
  o.margin = o.margin + m
  o.imargin = o.imargin + m
  o.fee = o.fee + fee
  o.status = FST.IN_POSITION
  fDirty(ctx, o)
  return fee, 0, o
end
