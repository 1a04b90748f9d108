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
]]

local function acceptedEvent(id, user, side, otype, p, a)
  return 'accepted|' .. id .. '|' .. user .. '|' .. side .. '|' .. otype .. '|' .. p .. '|' .. a
end

local function doneEvent(id, user, status)
  return 'done|' .. id .. '|' .. user .. '|' .. status
end
