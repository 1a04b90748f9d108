--[[
  Futures money arithmetic, all in minor units of the pair's quote currency. Notional of `q` lots
  at `t` ticks: t * q * ns, where ns = contractValue x quote minor units per tick x lot (ctx.fut.ns).
  Margin = floor(notional / leverage) (locked collateral, so rounding down is safe and splits of a
  fill never need more than the whole); fees round up (the exchange collects them).
]]
--- @include "includes/mulDiv"

local function fNotional(ctx, ticks, lots)
  return ticks * lots * ctx.fut.ns
end

-- What a resting opening order holds for `lots` at `ticks`: margin, taker fee, one unit per lot.
-- The unit per lot covers the rounding of any split into fills, so a maker never needs more than it holds.
local function fReserve(ctx, ticks, lots, lev)
  if lots <= 0 then return 0 end
  local n = fNotional(ctx, ticks, lots)
  return math.floor(n / lev) + mulDivCeil(n, ctx.fut.taker, 1000000) + lots
end

-- Liquidation price in ticks (DESIGN 4): long entry x (1 - 1/lev + mmr), short entry x (1 + 1/lev - mmr),
-- entry = the average entry of the open quantity; rounded towards the entry (triggers a little early).
local function fLiqPrice(ctx, o)
  local f = 1000000 / o.lev
  if o.side == 'buy' then
    return math.max(0, math.ceil(o.cost * (1000000 - f + ctx.fut.mmr) / (o.openQty * 1000000)))
  end
  return math.floor(o.cost * (1000000 + f - ctx.fut.mmr) / (o.openQty * 1000000))
end

-- Average entry in ticks (a double: used for comparisons only).
local function fEntry(o)
  if o.openQty > 0 then return o.cost / o.openQty end
  return o.price
end
