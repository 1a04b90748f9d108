--[[
  The trigger indices of a futures market, kept in step with its positions: per side a sorted set
  of liquidation, take-profit and stop-loss prices (score = ticks, member = position id), and the
  set of positions in force (funding iterates it). Sweeps find their positions by range queries here.
]]
--- @include "includes/futures/context"
--- @include "includes/futures/margin"
--- @include "includes/fmt"

-- One price index entry of a position in force: written when it differs from what the record held
-- when loaded (a position already in force is indexed at the prices its record holds), removed
-- when the price went away.
local function fIndexPrice(key, was, now, stood, idx)
  if now then
    if not (stood and was == now) then redis.call('ZADD', key, now, idx) end
  elseif stood and was then
    redis.call('ZREM', key, idx)
  end
end

-- Re-indexes one opening order as it now stands (called for each changed order by fFlush).
local function fIndex(ctx, o)
  local k = ctx.fkeys
  local long = o.side == 'buy'
  local idx = fmt(o.id)
  if o.status == FST.IN_POSITION and o.openQty > 0 then
    o.liq = fLiqPrice(ctx, o)
    local liqKey, tpKey, slKey = k.liqS, k.tpS, k.slS
    if long then liqKey, tpKey, slKey = k.liqL, k.tpL, k.slL end
    -- a position that was not in force yet has no entries: all are written
    local stood = o.wasActive
    fIndexPrice(liqKey, o.liqWas, o.liq, stood, idx)
    fIndexPrice(tpKey, o.tpWas, o.tp, stood, idx)
    fIndexPrice(slKey, o.slWas, o.sl, stood, idx)
    if not stood then redis.call('SADD', k.active, idx) end
    -- what the indices now hold, should the command flush this order again
    o.wasActive, o.liqWas, o.tpWas, o.slWas = true, o.liq, o.tp, o.sl
  elseif o.wasActive then
    for _, key in ipairs({ k.liqL, k.liqS, k.tpL, k.tpS, k.slL, k.slS }) do redis.call('ZREM', key, idx) end
    redis.call('SREM', k.active, idx)
    o.wasActive = false
  end
end
