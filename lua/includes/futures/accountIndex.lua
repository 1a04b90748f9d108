--[[
  The two order indices of a futures account, kept in step with its orders (sorted sets, score =
  member = order id; close orders are in neither):
    open      its opening orders that are Created (10) or InPosition (50): the account's positions
              and working orders are one range read (src/futures/futures-order-index.ts)
    finished  its opening orders that are no longer open: an order goes in when it leaves the open
              index, or when it is placed already finished (an IOC or market order that ended unfilled)
  Every opening order is in one of them, so the account's orders are their union (ZUNION, AGGREGATE
  MIN: an order in both, as the records of deployments before this split left every order, still
  reads once at its id). Placing an order so costs one ZADD, not two: the finished index is written
  when the order ends, by whatever command ends it.
]]
--- @include "includes/futures/context"
--- @include "includes/keys"
--- @include "includes/fmt"
--- @include "includes/rcall"

-- Moves one opening order between its account's indices when its status crossed the line since it
-- was loaded or last written (open: Created or InPosition; o.wasOpen, which includes/futures/context
-- fLoad sets); an order placed by this command (no wasOpen: includes/futures/createOrder) was in
-- neither. Called for each changed order by fFlush. A placed order is written once (createOrder
-- flushes once, and the next order of its batch loads it anew), so it is left without wasOpen: one
-- key more would outgrow its table's slots.
local function fIndexAccount(ctx, o)
  local status = o.status
  -- FST.CREATED and FST.IN_POSITION as literals: two table reads fewer for every order written
  local open, was = status == '10' or status == '50', o.wasOpen
  if open == was then return end
  local placed = was == nil
  -- the names are there once the command has met the account: no call for them
  local keys = ctx.accounts[o.acct] or fAccountKeys(ctx, o.acct)
  local idx, call = o.idText or fmt(o.id), RCALL or rcallOf()
  if open then
    call('ZADD', keys.open or futuresAccountOpenKey(ctx.P, o.acct), idx, idx)
  else
    if was then call('ZREM', keys.open or futuresAccountOpenKey(ctx.P, o.acct), idx) end
    call('ZADD', keys.finished or futuresAccountOrdersKey(ctx.P, o.acct), idx, idx)
  end
  if not placed then o.wasOpen = open end
end
