--[[
  The insurance fund of a margin currency (hash KEYS[14], field = currency code), which never goes
  negative: it pays a deficit only up to what it holds; the rest of a deficit stays with the pnl pool
  (the counterparties of realized pnl, docs/futures.md "Insurance fund"). The same hash holds the
  fund's net position per pair (`position:<pair>`, lots, long positive), taken over in liquidations.
]]
--- @include "includes/futures/context"
--- @include "includes/deltas"

-- The fund's balance as it stands with this command's pending deltas.
local function fFundBalance(ctx)
  local v = tonumber(redis.call('HGET', ctx.keys.insurance, ctx.fut.cur) or '0')
  return v + pendingDelta(ctx, ctx.keys.insurance, ctx.fut.cur)
end

-- The field of the fund hash that holds the fund's net position in this pair (lots, long positive).
local function fFundPositionField(ctx)
  return 'position:' .. ctx.pair
end

-- Pays a deficit d >= 0 that a close left: from the fund while it holds, the rest from the pnl pool.
local function fCoverDeficit(ctx, d)
  if d <= 0 then return end
  local fromFund = math.min(d, math.max(0, fFundBalance(ctx)))
  addDelta(ctx, ctx.keys.insurance, ctx.fut.cur, -fromFund)
  addDelta(ctx, ctx.keys.pool, ctx.fut.cur, -(d - fromFund))
end
