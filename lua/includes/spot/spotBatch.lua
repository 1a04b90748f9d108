--[[
  The context of one placeSpotOrders call (lua/spot/placeSpotOrders), kept across calls with its
  tables and re-pointed at each call's market, as the futures batch is (includes/futures/context
  futuresBatch): a call made some sixteen tables (the context, its keys, level changes, events,
  balance changes, the pair's parameters, the ids and the undo log), each made, grown, swept and
  freed, which one order a call paid in full. Every field newContext (includes/publishEvents) and the
  call set is put back here; `read` (the balances its orders read) is emptied. `inUse` is true while
  a call runs: one that died past its orders' pcall (a runtime error in its last writes) leaves it
  so, and the next call starts from new tables.
  KEYS and ARGV as placeSpotOrders takes them; n: its orders.
]]
--- @include "includes/publishEvents"
--- @include "includes/spot/spotMarketKeys"
--- @include "includes/globals"

-- `kept` a local of the function that makes it, not of the library's top level (near Lua's 200)
local spotBatch = (function()
  local kept
  return function(KEYS, ARGV, n)
    local ctx = kept
    if not ctx or ctx.inUse then
      ctx = newContext(ARGV[1], spotMarketKeys(KEYS), '', ARGV[9])
      ctx.keys.history = { records = KEYS[13], times = KEYS[14], retention = KEYS[15] }
      ctx.spot = { base = nil, quote = nil, quoteScale = nil, baseScale = nil, makerFee = nil, takerFee = nil }
      -- the call's order and trade ids, reserved a batch at a time (includes/idCounter)
      ctx.ids = { n = n, oidNext = nil, oidTop = nil, tidNext = nil, tidTop = nil, tidFirst = nil }
      ctx.pair, ctx.lastTicks, ctx.undo, ctx.undoLog, ctx.inUse = nil, nil, nil, nil, false
      -- the balances the call's orders read, by wallet key and currency (lua/spot/placeSpotOrders)
      ctx.read = {}
      -- level changes written once a call, at the entry (includes/book changeLevel); a user's
      -- trade index entries one ZADD a call (includes/tradeHistory, emptied there)
      ctx.levelsLater, ctx.tradesByUser = true, {}
      -- the wallet fields flushDeltas writes, for the private stream's balances (userEvents.walletStates empties it)
      ctx.written = {}
      kept = ctx
    else
      local keys = ctx.keys
      keys.orderIds, keys.tradeIds, keys.seq, keys.events, keys.last, keys.fees = KEYS[1], KEYS[2], KEYS[9], KEYS[10],
        KEYS[11], KEYS[12]
      keys.book.bids, keys.book.asks, keys.levels.bids, keys.levels.asks = KEYS[3], KEYS[4], KEYS[5], KEYS[6]
      keys.lvlqty.bids, keys.lvlqty.asks = KEYS[7], KEYS[8]
      local h = keys.history
      h.records, h.times, h.retention = KEYS[13], KEYS[14], KEYS[15]
      ctx.P, ctx.ts, ctx.maxlen, ctx.bookChanged, ctx.lastTicks, ctx.undo = ARGV[1], '', ARGV[9], false, nil, nil
      local events, deltas, order = ctx.events, ctx.deltas, ctx.deltaOrder
      for i = #events, 1, -1 do events[i] = nil end
      -- deltaOrder lists every key of deltas (includes/deltas)
      for i = #order, 1, -1 do
        deltas[order[i]] = nil
        order[i] = nil
      end
      emptyTable(ctx.read)
      emptyTable(ctx.changed.bids)
      emptyTable(ctx.changed.asks)
      local ids = ctx.ids
      ids.n, ids.oidNext, ids.oidTop, ids.tidNext, ids.tidTop, ids.tidFirst = n, nil, nil, nil, nil, nil
    end
    ctx.pair = ARGV[2]
    -- numbers read by arithmetic (tonumber is a global: ~270 instructions a lookup)
    local s = ctx.spot
    s.base, s.quote, s.quoteScale, s.baseScale, s.makerFee, s.takerFee = ARGV[3], ARGV[4], ARGV[5] + 0, ARGV[6] + 0,
      ARGV[7] + 0, ARGV[8] + 0
    ctx.inUse = true
    return ctx
  end
end)()
