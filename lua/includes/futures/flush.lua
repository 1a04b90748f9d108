--[[
  The end of a futures command: balance deltas, then every order the command touched (one HSET
  of its record each, includes/futures/orderRecord) with the trigger indices of the positions
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
--- @include "includes/futures/accountStats"

-- Writes every object the command touched (one HSET of its record, includes/futures/orderRecord),
-- with the trigger and account indices of the opening orders.
local function fFlush(ctx)
  local dirty = ctx.dirtyOrder
  -- a numeric for: ipairs calls its C iterator once per object
  for i = 1, #dirty do
    local o = dirty[i]
    if o.role ~= 'close' then
      fIndex(ctx, o)
      fIndexAccount(ctx, o)
      -- aggregates only for the accounts copy trading reads (includes/futures/accountStats)
      if fStatsTracked(ctx, o.acct) then fStatsOrder(ctx, o) end
    end
    local state = fStateText(o, ctx.ts)
    -- a new order's fixed fields go out in the same HSET
    if o.fixed then
      redis.call('HSET', fOrderKey(ctx, o.id), 'futures', o.fixed, 'state', state)
      o.fixed = nil
    else
      redis.call('HSET', fOrderKey(ctx, o.id), 'state', state)
    end
  end
  fStatsCommit(ctx)
end

local function fCommit(ctx)
  flushDeltas(ctx)
  fFlush(ctx)
  publishEvents(ctx)
end
