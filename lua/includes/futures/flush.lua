--[[
  The end of a futures command: balance deltas, then every order the command touched (one HSET
  of its record each, includes/futures/orderRecord, and its `st` event, includes/packedEvent) with the trigger indices of the positions
  among them, the open-orders indices of their accounts and the trading aggregates of the tracked
  accounts among those (includes/futures/accountStats), then the market's event entry.
]]
--- @include "includes/futures/context"
--- @include "includes/futures/triggerIndex"
--- @include "includes/futures/accountIndex"
--- @include "includes/futures/orderRecord"
--- @include "includes/deltas"
--- @include "includes/publishEvents"
--- @include "includes/fmt"
--- @include "includes/rcall"
--- @include "includes/futures/accountStats"

-- Writes every object the command touched (one HSET of its record, includes/futures/orderRecord),
-- with the trigger and account indices of the opening orders.
local function fFlush(ctx)
  local dirty, call = ctx.dirtyOrder, RCALL or rcallOf()
  -- read once for the loop (fStatsTracked makes ctx.tracked when there is none: a nil here only
  -- costs that call, which reads it)
  local ts, orderKeys, known, events = ctx.ts, ctx.orderKeys, ctx.tracked, ctx.events
  -- a numeric for: ipairs calls its C iterator once per object
  for i = 1, #dirty do
    local o = dirty[i]
    if o.role ~= 'close' then
      -- an order neither in force nor in force when loaded has no trigger entries to write
      -- '50': FST.IN_POSITION, as a literal (no table read)
      if o.status == '50' or o.wasActive then fIndex(ctx, o) end
      fIndexAccount(ctx, o)
      -- aggregates only for the accounts copy trading reads (includes/futures/accountStats); the
      -- answer the command already has is read here, without a call
      local tracked = known and known[o.acct]
      if tracked == nil then tracked = fStatsTracked(ctx, o.acct) end
      if tracked then fStatsOrder(ctx, o) end
    end
    -- the next version (a new order's first: 1), written and sent (the private stream's `st`)
    o.v = (o.v or 0) + 1
    local state = fStateText(o, ts)
    local idText = o.idText or fmt(o.id)
    -- a new order's fixed fields go out in the same HSET
    local key = orderKeys[o.id] or fOrderKey(ctx, o.id)
    if o.fixed then
      call('HSET', key, 'futures', o.fixed, 'state', state)
      events[#events + 1] = ORDER_EVENTS.new(idText, o.fixed)
      o.fixed = nil
    else
      call('HSET', key, 'state', state)
    end
    events[#events + 1] = ORDER_EVENTS.state(idText, o.user, state)
  end
  -- no call when no tracked account changed
  if ctx.statsOrder then fStatsCommit(ctx) end
end

local function fCommit(ctx)
  flushDeltas(ctx)
  fFlush(ctx)
  publishEvents(ctx)
end
