--[[
  The market events a command makes most (docs/events.md, "Packed events"): an element of the
  entry's `ev` array that is a string, not an object, its fields joined by '|' after the kind. A
  table per event cost its constructor and then cjson's walk over its keys (~27,000 instructions of
  a crossing futures order's 473,000); one string is a concatenation, and cjson copies it: 4.4 %
  fewer instructions a crossing order, 3.4 % a resting one (docs/performance.md, eighth pass).
  The service expands each back into the object it stands for (parseEntry,
  src/platform/market-event.ts), so every reader sees the same events as before. No value holds a
  '|': ids and amounts are digits, user ids letters, digits, '_' and '-' (src/domain), the rest are
  words. Two more kinds are packed where they are made, their only place: `book` (publishEvents)
  and `trade` (includes/tradeHistory recordTrades: the trade's history record, then to and mo on
  futures).
    accepted|id|u|side|type|p|a     p and a '' when absent (a market order's price, a budget)
    done|id|u|status
    st|id|u|<state>                 an order's state as the command just wrote it, its version
                                    last (includes/spot/spotOrder, includes/futures/orderRecord):
                                    one per write, so the private stream sends every state in order
    new|id|<fixed>                  a new order's fixed fields as its record holds them, before its
                                    first `st` (the clientOrderId last: the text may hold '|')
]]
--- @include "includes/fmt"

local function acceptedEvent(id, user, side, otype, p, a)
  return 'accepted|' .. id .. '|' .. user .. '|' .. side .. '|' .. otype .. '|' .. p .. '|' .. a
end

local function doneEvent(id, user, status)
  return 'done|' .. id .. '|' .. user .. '|' .. status
end

-- The private stream's two (docs/events.md), cheap by design: the texts are the ones the command
-- writes to the record anyway. One table, not three locals: the library's top level is near Lua
-- 5.1's 200 locals (src/platform/redis/lua-loader.ts).
local ORDER_EVENTS = {
  texts = { '1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11', '12', '13', '14', '15', '16' },
}
function ORDER_EVENTS.state(id, user, state)
  return 'st|' .. id .. '|' .. user .. '|' .. state
end
function ORDER_EVENTS.new(id, fixed)
  return 'new|' .. id .. '|' .. fixed
end
-- version v as text: the first ones without sprintf (an order is written a few times)
function ORDER_EVENTS.version(v)
  return ORDER_EVENTS.texts[v] or fmt(v)
end
