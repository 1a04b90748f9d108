--[[
  The open-orders index of a futures account, kept in step with its orders: a sorted set of the
  account's opening orders that are Created (10) or InPosition (50), score = member = order id, so
  the account's positions and working orders are one range read (src/futures/futures-order-index.ts).
  The index of all the account's opening orders grows only when one is placed
  (lua/futures/createFuturesOrder); close orders are in neither.
]]
--- @include "includes/futures/context"
--- @include "includes/fmt"

local function fIsOpen(status)
  return status == FST.CREATED or status == FST.IN_POSITION
end

-- Moves one opening order in or out of its account's open index when its status crossed the line
-- since it was loaded (a new order was nowhere). Called for each changed order by fFlush.
local function fIndexAccount(ctx, o)
  local open = fIsOpen(o.status)
  if open == (o.wasOpen or false) then return end
  local key = fAccountKeys(ctx, o.acct).open
  local idx = o.idText or fmt(o.id)
  if open then redis.call('ZADD', key, idx, idx) else redis.call('ZREM', key, idx) end
  o.wasOpen = open
end
