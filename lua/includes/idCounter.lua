--[[
  A call's ids from the order and trade id counters (string keys INCR raises), handed out in order
  exactly as one INCR per id would, in one command per counter per call when the reservation fits.
  For a batch (createFuturesOrders, placeSpotOrders); the state is numbers in the batch's own table `b` (a table per
  counter per call measured more instructions than the commands it saved).
    order ids: the batch's first reserves one per order of the batch (INCRBY b.n).
    trade ids: the batch's first trade reserves one per order of the batch too (a crossing order
      mostly fills one maker), then 64 at a time when they run out (a sweep).
  idsWrite gives back those no order or trade took (rejected orders take none; a failed order gives
  its id back with b.oidNext = its id). Reserved first: an error escaping the batch leaves ids
  unused, never reused. Other scripts INCR the same counters in their own calls: only the batch's
  use has to add up. (The library's top level is near Lua's 200 locals: constants stay literal.)
]]
--- @include "includes/fmt"
--- @include "includes/rcall"

-- k more ids from the counter at `key`, k passed as text (kText): Redis prints a number argument
-- with %.17g, dearer than fmt. The first and the last.
local function idsReserve(key, k, kText)
  local top = (RCALL or rcallOf())('INCRBY', key, kText)
  return top - k + 1, top
end

local function idsNextOrder(b, key)
  local id = b.oidNext
  if not id then id, b.oidTop = idsReserve(key, b.n, fmt(b.n)) end
  b.oidNext = id + 1
  return id
end

local function idsNextTrade(b, key)
  local id = b.tidNext
  if not id then
    id, b.tidTop = idsReserve(key, b.n, fmt(b.n))
    -- the first of the call's trade ids, where an order undone (includes/undoLog) gives them back from
    b.tidFirst = id
  elseif id > b.tidTop then
    id, b.tidTop = idsReserve(key, 64, '64')
  end
  b.tidNext = id + 1
  return id
end

-- Both counters where one INCR per id handed out would have left them (the ids reserved and not
-- taken given back).
local function idsWrite(b, orderKey, tradeKey)
  -- a counter given back to 0 was absent before the call (no id is 0): it goes, as it was
  local call = RCALL or rcallOf()
  if b.oidNext and b.oidNext - 1 ~= b.oidTop and call('INCRBY', orderKey, fmt(b.oidNext - 1 - b.oidTop)) == 0 then
    call('DEL', orderKey)
  end
  if b.tidNext and b.tidNext - 1 ~= b.tidTop and call('INCRBY', tradeKey, fmt(b.tidNext - 1 - b.tidTop)) == 0 then
    call('DEL', tradeKey)
  end
end
