--[[
  The insurance fund of a margin currency (hash KEYS[14], field = currency code), which never goes
  negative: it pays a deficit only up to what it holds; the rest of a deficit stays with the pnl pool
  (the counterparties of realized pnl, docs/futures.md "Insurance fund"). The same hash holds the
  fund's position per pair, taken over in liquidations: `position:<pair>` (lots, long positive) and
  `cost:<pair>` (ticks x lots of those lots), realized against the pnl pool like any position's.
]]
--- @include "includes/futures/context"
--- @include "includes/mulDiv"
--- @include "includes/deltas"

-- The user id the fund's own trades carry (no account can have it: user ids are [A-Za-z0-9_-]).
local FUND_USER = '$insurance'

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

-- The fund's position in this pair as a position table (side, openQty, cost, margin = the fund's
-- balance, so margin.lua's prices apply), nil when it holds none.
local function fFundPosition(ctx)
  local pf, cf = fFundPositionField(ctx), 'cost:' .. ctx.pair
  local v = redis.call('HMGET', ctx.keys.insurance, pf, cf)
  local held = tonumber(v[1] or '0') + pendingDelta(ctx, ctx.keys.insurance, pf)
  if held == 0 then return nil end
  local side = 'buy'
  if held < 0 then side = 'sell' end
  return { id = 'fund', user = FUND_USER, side = side, openQty = math.abs(held),
    cost = tonumber(v[2] or '0') + pendingDelta(ctx, ctx.keys.insurance, cf), margin = math.max(0, fFundBalance(ctx)) }
end

-- The fund's pnl of closing q of its lots at ticks (portion: their share of its cost).
local function fFundPnl(ctx, fp, ticks, q)
  local portion = fp.cost
  if q < fp.openQty then portion = mulDivFloor(fp.cost, q, fp.openQty) end
  local pnl = (ticks * q - portion) * ctx.fut.ns
  if fp.side == 'sell' then pnl = -pnl end
  return pnl, portion
end

-- The fund buys (lots > 0) or sells (lots < 0) lots of this pair at ticks: first closing what it holds
-- of the other side, its pnl from (or a loss to) the pnl pool, a loss only as far as the fund holds (the
-- rest stays a deficit of the pool); then holding the rest at that price. Returns the realized pnl.
local function fFundTrade(ctx, lots, ticks)
  local ins, pf, cf = ctx.keys.insurance, fFundPositionField(ctx), 'cost:' .. ctx.pair
  local fp = fFundPosition(ctx)
  local dir = 1
  if lots < 0 then dir = -1 end
  local n, pnl = math.abs(lots), 0
  if fp and (fp.side == 'buy') ~= (dir > 0) then
    local q = math.min(n, fp.openQty)
    local portion
    pnl, portion = fFundPnl(ctx, fp, ticks, q)
    local moved = pnl
    if pnl < 0 then moved = -math.min(-pnl, fp.margin) end
    addDelta(ctx, ins, ctx.fut.cur, moved)
    addDelta(ctx, ctx.keys.pool, ctx.fut.cur, -moved)
    addDelta(ctx, ins, cf, -portion)
    addDelta(ctx, ins, pf, dir * q)
    n = n - q
  end
  if n > 0 then
    addDelta(ctx, ins, pf, dir * n)
    addDelta(ctx, ins, cf, ticks * n)
  end
  return pnl
end
