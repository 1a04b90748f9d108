--[[
  The transactional outbox: one stream entry per command, written by the script that made the
  change. Fields: `ts`, `ev` (JSON array of events, integers as decimal strings because cjson
  prints large numbers in exponent form), and `seq` when the book changed: the market's book
  sequence, rising by exactly one per changed book, with the new total of every changed level as
  a `book` event ({side, p, q}; q "0" removes the level). The command's trades also go to the
  market's trade history (includes/tradeHistory), which outlives the stream's trimming.
]]
--- @include "includes/fmt"
--- @include "includes/book"
--- @include "includes/tradeHistory"
--- @include "includes/rcall"
--- @include "includes/globals"

local BOOK_SIDES = { 'bids', 'asks' }

local function publishEvents(ctx)
  recordTrades(ctx)
  local call, nxt = RCALL or rcallOf(), TNEXT or tnextOf()
  local events, keys = ctx.events, ctx.keys
  local n = #events
  local seqText
  if ctx.bookChanged then
    if ctx.levelsLater then
      -- the call's net change of each level (includes/book changeLevel), written now: a net 0 still
      -- goes through (HINCRBY by 0), so the level's total is printed as a change per write would have
      for i = 1, 2 do
        local side = BOOK_SIDES[i]
        for p, v in nxt, ctx.changed[side] do
          -- one change: its text as the caller had it (a number and a text are never ==)
          local d, text = v + 0, v
          if d == v then text = nil end
          changeLevel(ctx, side, nil, d, p, text, true)
        end
      end
    end
    seqText = fmt(call('INCR', keys.seq))
    for i = 1, 2 do
      local side = BOOK_SIDES[i]
      -- the level's total as changeLevel wrote it (includes/book; undoRollback puts back the same)
      for p, q in nxt, ctx.changed[side] do
        n = n + 1
        -- packed (includes/packedEvent): book|side|p|q
        events[n] = 'book|' .. side .. '|' .. p .. '|' .. q
      end
    end
  end
  if ctx.lastTicks then call('SET', keys.last, fmt(ctx.lastTicks)) end
  if n == 0 then return end
  -- the entry's fields passed as they are (no field list to build and unpack)
  if seqText then
    call('XADD', keys.events, 'MAXLEN', '~', ctx.maxlen, '*', 'ts', ctx.ts, 'seq', seqText, 'ev', (TCJSON or cjsonOf()).encode(events))
  else
    call('XADD', keys.events, 'MAXLEN', '~', ctx.maxlen, '*', 'ts', ctx.ts, 'ev', (TCJSON or cjsonOf()).encode(events))
  end
end

-- `events`, `changed`: an entry already being built (a batch's), else new ones. (A futures
-- command's context has these fields too, in its own constructor: includes/futures/context.)
local function newContext(P, keys, ts, maxlen, events, changed)
  return {
    P = P, keys = keys, ts = ts, maxlen = maxlen,
    changed = changed or { bids = {}, asks = {} }, bookChanged = false,
    events = events or {}, deltas = {}, deltaOrder = {},
  }
end
