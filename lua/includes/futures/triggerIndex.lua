--[[
  The trigger indices of a futures market, kept in step with its positions: per side a sorted set
  of liquidation, take-profit and stop-loss prices (score = ticks, member = position id). Sweeps find
  their positions by range queries here. Every position in force is in exactly one liquidation index
  (liqL or liqS), so together they are the positions in force (funding reads them): no separate set.
  A batch of createFuturesOrders (ctx.ids: the batch, includes/idCounter) writes its positions'
  liquidation entries once, at its end (fWriteLiqEntries): one ZADD per side for all of them, not
  one per position. No order of a batch reads the indices (sweeps, funding and ADL do, in other
  scripts), so the orders' outcomes are those of writes made at once; each position's last entry
  of the batch is the one written, its removal included.
]]
--- @include "includes/futures/context"
--- @include "includes/futures/margin"
--- @include "includes/fmt"
--- @include "includes/rcall"
--- @include "includes/globals"

-- The liquidation entries a batch writes at its end, per side an array of score, member pairs
-- (b.liqL, b.liqS) and one of the positions that left force (b.liqGone), each made at its first use
-- with the slots of a usual batch's (4 orders, two positions each: grown from empty, an array
-- rehashes at 1, 2, 4, 8 and 16 entries). A position met twice has two pairs: the ZADD takes its
-- members in order, so the last stands.
local function fLiqPending(b, field)
  local t = { nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil }
  b[field] = t
  return t
end

-- Writes a batch's pending liquidation entries (fLiqPending): one ZADD per side, then the positions
-- that left force out of both (a position that leaves force never comes back, so its removal,
-- written last, is its last entry).
local function fWriteLiqEntries(b, liqL, liqS)
  local addL, addS, gone = b.liqL, b.liqS, b.liqGone
  if not (addL or addS or gone) then return end
  local call, unpackAll = RCALL or rcallOf(), TUNPACK or tunpackOf()
  if addL then call('ZADD', liqL, unpackAll(addL)) end
  if addS then call('ZADD', liqS, unpackAll(addS)) end
  if gone then
    call('ZREM', liqL, unpackAll(gone))
    call('ZREM', liqS, unpackAll(gone))
  end
end

-- Re-indexes one opening order as it now stands (called by fFlush for each changed order in force,
-- or in force when loaded): its liquidation entry, the price in its side's index or out of both,
-- at once or at the batch's end when the command is one (header); then its TP/SL entries.
local function fIndex(ctx, o)
  local long, idx = o.side == 'buy', o.idText or fmt(o.id)
  local liqText = false
  -- '50': FST.IN_POSITION, as a literal (no table read)
  if o.status == '50' and o.openQty > 0 then
    -- scores as text: Redis 7.0 prints a Lua number argument with %.17g, dearer than fmt; the
    -- liquidation price printed here is the record's (o.liqText, includes/futures/orderRecord),
    -- kept as text alone: nothing reads the number, and a new order has no slot to spare for it
    liqText = fmt(fLiqPrice(ctx, o))
    o.liqText = liqText
  elseif not o.wasActive then
    return
  end
  local b = ctx.ids
  if b then
    local t
    if liqText then
      if long then t = b.liqL or fLiqPending(b, 'liqL') else t = b.liqS or fLiqPending(b, 'liqS') end
      local n = #t
      t[n + 1], t[n + 2] = liqText, idx
    else
      t = b.liqGone or fLiqPending(b, 'liqGone')
      t[#t + 1] = idx
    end
  else
    local k, call = ctx.fkeys, RCALL or rcallOf()
    if not liqText then
      call('ZREM', k.liqL, idx)
      call('ZREM', k.liqS, idx)
    elseif long then
      call('ZADD', k.liqL, liqText, idx)
    else
      call('ZADD', k.liqS, liqText, idx)
    end
  end
  -- a position that was not in force yet has no entries to remove: one with no TP/SL (the
  -- commonest, a new one) has nothing more to do
  if liqText and not (o.tp or o.sl or o.wasActive) then return end
  local k, call = ctx.fkeys, RCALL or rcallOf()
  if liqText then
    local tpKey, slKey = k.tpS, k.slS
    if long then tpKey, slKey = k.tpL, k.slL end
    if o.tp then call('ZADD', tpKey, fmt(o.tp), idx) elseif o.wasActive then call('ZREM', tpKey, idx) end
    if o.sl then call('ZADD', slKey, fmt(o.sl), idx) elseif o.wasActive then call('ZREM', slKey, idx) end
  else
    for _, key in ipairs({ k.tpL, k.tpS, k.slL, k.slS }) do call('ZREM', key, idx) end
  end
end
