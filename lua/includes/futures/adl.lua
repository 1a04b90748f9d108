--[[
  Auto-deleveraging (docs/futures.md "ADL"): what neither the book nor the insurance fund
  took of a liquidated position is closed against opposite positions at its bankruptcy price, highest
  ranked first, with no fee. Rank score = unrealized pnl % x effective leverage at the mark
  (pnl / margin x notional / (margin + pnl)); a loser scores pnl % / effective leverage (below every
  winner); a position with no equity left at the mark comes last. Two passes: first only positions
  the bankruptcy price leaves solvent; then, as the last resort, the others in the same order, each
  ending at zero with what it lacks covered by the fund as far as it holds, the rest a deficit of the
  pnl pool. Open interest is zero-sum, so the opposite side always has the lots (with the fund's).
]]
--- @include "includes/futures/context"
--- @include "includes/futures/margin"
--- @include "includes/futures/fill"
--- @include "includes/futures/close"
--- @include "includes/fmt"

-- The ADL score of a position at `mark` (a double, for ranking only); -inf when its equity is gone.
local function fAdlScore(ctx, o, mark)
  local notional = fNotional(ctx, mark, o.openQty)
  local upnl = notional - o.cost * ctx.fut.ns
  if o.side == 'sell' then upnl = -upnl end
  local equity = o.margin + upnl
  if equity <= 0 then return -math.huge end
  local pct = upnl / math.max(1, o.margin)
  local lev = notional / equity
  if upnl > 0 then return pct * lev end
  return pct / lev
end

-- The positions opposite to `side` in force, best ADL candidates first: { {o, score}, ... }. Built
-- once per side and command (a mass liquidation does not reload every opposite position each time);
-- the caller skips entries closed since. ctx.adlQueues = nil rebuilds them.
local function fAdlQueue(ctx, side, mark)
  local key = ctx.fkeys.liqS
  if side == 'sell' then key = ctx.fkeys.liqL end
  ctx.adlQueues = ctx.adlQueues or {}
  if ctx.adlQueues[key] then return ctx.adlQueues[key] end
  local queue = {}
  for _, id in ipairs(redis.call('ZRANGE', key, 0, -1)) do
    local o = fLoad(ctx, id)
    if o and o.status == FST.IN_POSITION and o.openQty > 0 then queue[#queue + 1] = { o = o, score = fAdlScore(ctx, o, mark) } end
  end
  table.sort(queue, function(a, b)
    if a.score ~= b.score then return a.score > b.score end
    return a.o.id < b.o.id
  end)
  ctx.adlQueues[key] = queue
  return queue
end

-- Closes up to `want` lots of the liquidated `liq` ({id, user, side}: a position or the fund) against
-- the ADL queue at `bp`, solvent counterparties first, then any (see the header). closeLiq(q) closes
-- q lots of `liq` at bp and returns its pnl. Returns the lots closed.
local function fDeleverage(ctx, liq, bp, mark, want, closeLiq)
  local done = 0
  for pass = 1, 2 do
    for _, entry in ipairs(fAdlQueue(ctx, liq.side, mark)) do
      if done >= want then return done end
      local o = entry.o
      if o.status == FST.IN_POSITION and o.openQty > 0 and o.id ~= liq.id then
        local obp = fBankruptcyPrice(ctx, o)
        if pass == 2 or (o.side == 'buy' and bp >= obp) or (o.side == 'sell' and bp <= obp) then
          local q = math.min(want - done, o.openQty)
          fCancelWorking(ctx, o)
          local oc = fNewCloseOrder(ctx, o, bp, 'adl')
          local reason = ctx.closeReason
          ctx.closeReason = 'adl'
          local opnl = fCloseFill(ctx, oc, bp, q, 0, fAccountKeys(ctx, o.acct).hash)
          ctx.closeReason = reason
          local pnl = closeLiq(q)
          ctx.events[#ctx.events + 1] = { e = 'adl', p = fmt(bp), q = fmt(q), pos = liq.idText or fmt(liq.id), u = liq.user,
            pnl = fmt(pnl), apos = o.idText or fmt(o.id), au = o.user, apnl = fmt(opnl) }
          done = done + q
        end
      end
    end
  end
  return done
end
