--[[
  A call's ids from the order and trade id counters (string keys INCR raises), handed out in order
  exactly as one INCR per id would, in at most two commands per counter per call. For a batch
  (createFuturesOrders); the state is numbers in the batch's own table `b` (a table per counter
  per call measured more instructions than the commands it saved).
    order ids: the batch's first reserves one per order of the batch (INCRBY b.n), idsWrite gives
      back those no order took (rejected orders take none; a failed order gives its id back with
      b.oidNext = its id). Reserved first: an error escaping the batch leaves ids unused, never reused.
    trade ids: the first by INCR, idsWrite raises the counter by the ones counted on from it.
  Other scripts INCR the same counters in their own calls: only the batch's use has to add up.
]]
--- @include "includes/fmt"
--- @include "includes/rcall"

local function idsNextOrder(b, key)
  local id = b.oidNext
  if not id then
    b.oidTop = (RCALL or rcallOf())('INCRBY', key, b.n)
    id = b.oidTop - b.n + 1
  end
  b.oidNext = id + 1
  return id
end

local function idsNextTrade(b, key)
  local id = b.tidNext
  if not id then
    id = (RCALL or rcallOf())('INCR', key)
    b.tidFirst = id
  end
  b.tidNext = id + 1
  return id
end

-- Both counters where one INCR per id handed out would have left them.
local function idsWrite(b, orderKey, tradeKey)
  local call = RCALL or rcallOf()
  if b.oidNext and b.oidNext - 1 ~= b.oidTop then call('INCRBY', orderKey, fmt(b.oidNext - 1 - b.oidTop)) end
  if b.tidNext and b.tidNext - 1 ~= b.tidFirst then call('INCRBY', tradeKey, fmt(b.tidNext - 1 - b.tidFirst)) end
end
