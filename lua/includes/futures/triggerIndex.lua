--[[
  The trigger indices of a futures market, kept in step with its positions: per side a sorted set
  of liquidation, take-profit and stop-loss prices (score = ticks, member = position id). Sweeps find
  their positions by range queries here. Every position in force is in exactly one liquidation index
  (liqL or liqS), so together they are the positions in force (funding reads them): no separate set.
]]
--- @include "includes/futures/context"
--- @include "includes/futures/margin"
--- @include "includes/fmt"
--- @include "includes/rcall"

-- Re-indexes one opening order as it now stands (called for each changed order by fFlush).
local function fIndex(ctx, o)
  local k, call = ctx.fkeys, RCALL or rcallOf()
  local long = o.side == 'buy'
  local idx = o.idText or fmt(o.id)
  if o.status == FST.IN_POSITION and o.openQty > 0 then
    -- scores as text: Redis 7.0 prints a Lua number argument with %.17g, dearer than fmt; the
    -- liquidation price printed here is the record's too (o.liqText, includes/futures/orderRecord)
    o.liq = fLiqPrice(ctx, o)
    o.liqText = fmt(o.liq)
    if long then call('ZADD', k.liqL, o.liqText, idx) else call('ZADD', k.liqS, o.liqText, idx) end
    -- a position that was not in force yet has no entries to remove: one with no TP/SL (the
    -- commonest, a new one) has nothing more to do
    if not (o.tp or o.sl or o.wasActive) then return end
    local tpKey, slKey = k.tpS, k.slS
    if long then tpKey, slKey = k.tpL, k.slL end
    if o.tp then call('ZADD', tpKey, fmt(o.tp), idx) elseif o.wasActive then call('ZREM', tpKey, idx) end
    if o.sl then call('ZADD', slKey, fmt(o.sl), idx) elseif o.wasActive then call('ZREM', slKey, idx) end
  elseif o.wasActive then
    for _, key in ipairs({ k.liqL, k.liqS, k.tpL, k.tpS, k.slL, k.slS }) do call('ZREM', key, idx) end
  end
end
