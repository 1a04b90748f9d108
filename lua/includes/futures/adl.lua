--[[
  Auto-deleveraging (DESIGN 4, docs/futures.md "ADL"): what neither the book nor the insurance fund
  took of a liquidated position is closed against opposite positions at its bankruptcy price, highest
  ranked first, with no fee. Rank score = unrealized pnl % x effective leverage at the mark
  (pnl / margin x notional / (margin + pnl)); a loser scores pnl % / effective leverage (below every
  winner). A position that the bankruptcy price would itself leave in deficit is passed over.
]]
--- @include "includes/futures/context"
--- @include "includes/futures/margin"
--- @include "includes/futures/fill"
--- @include "includes/futures/close"
--- @include "includes/fmt"

-- The ADL score of a position at `mark` (a double, for ranking only); nil when its equity is gone.
local function fAdlScore(ctx, o, mark)
  local notional = fNotional(ctx, mark, o.openQty)
  local upnl = notional - o.cost * ctx.fut.ns
  if o.side == 'sell' then upnl = -upnl end
  local equity = o.margin + upnl
  if equity <= 0 then return nil end
  local pct = upnl / math.max(1, o.margin)
  local lev = notional / equity
  if upnl > 0 then return pct * lev end
  return pct / lev
end

-- Opposite positions of `pos` in force, best ADL candidates first: { {o, score}, ... }. Built once per
-- side and command (a mass liquidation does not reload every opposite position each time); the
-- caller skips entries closed since.
local function fAdlQueue(ctx, pos, mark)
  local key = ctx.fkeys.liqS
  if pos.side == 'sell' then key = ctx.fkeys.liqL end
  ctx.adlQueues = ctx.adlQueues or {}
  if ctx.adlQueues[key] then return ctx.adlQueues[key] end
  local queue = {}
  for _, id in ipairs(redis.call('ZRANGE', key, 0, -1)) do
    local o = fLoad(ctx, id)
    if o and o.status == FST.IN_POSITION and o.openQty > 0 and o.id ~= pos.id then
      local score = fAdlScore(ctx, o, mark)
      if score then queue[#queue + 1] = { o = o, score = score } end
    end
  end
  table.sort(queue, function(a, b)
    if a.score ~= b.score then return a.score > b.score end
    return a.o.id < b.o.id
  end)
  ctx.adlQueues[key] = queue
  return queue
end

-- Closes up to `want` lots of `pos` (a liquidation, its close order `c`) against the ADL queue at
-- `bp`. Returns the lots closed.
local function fDeleverage(ctx, pos, c, bp, mark, want)
  local done = 0
  for _, entry in ipairs(fAdlQueue(ctx, pos, mark)) do
    if done >= want then break end
    local o = entry.o
    local open = o.status == FST.IN_POSITION and o.openQty > 0
    local solvent = false
    if open then
      local obp = fBankruptcyPrice(ctx, o)
      solvent = (o.side == 'buy' and bp >= obp) or (o.side == 'sell' and bp <= obp)
    end
    if solvent then
      local q = math.min(want - done, o.openQty)
      fCancelWorking(ctx, o)
      local oc = fNewCloseOrder(ctx, o, bp, 'adl')
      ctx.closeReason = 'adl'
      local opnl = fCloseFill(ctx, oc, bp, q, 0, fAccountKeys(ctx, o.acct).hash)
      ctx.closeReason = 'liquidation'
      local pnl = fCloseFill(ctx, c, bp, q, 0, fAccountKeys(ctx, pos.acct).hash)
      ctx.events[#ctx.events + 1] = { e = 'adl', p = fmt(bp), q = fmt(q), pos = fmt(pos.id), u = pos.user,
        pnl = fmt(pnl), apos = fmt(o.id), au = o.user, apnl = fmt(opnl) }
      done = done + q
    end
  end
  return done
end
