--[[
  Trade history: every trade of a market, kept TRADE_HISTORY_DAYS whatever happens to the event
  stream (docs/market-data.md). Written by publishEvents, so by the very command that made the
  trades, from its `trade` events. Keys, all under the engine tag (src/platform/redis/keys.ts
  names the same). A market's three (records, time index, retention) come in KEYS where the script
  takes them (placeSpotOrders: ctx.keys.history); the futures scripts build them here from the
  engine prefix and the pair, in the market's slot: their KEYS are the market's 22 that six
  scripts share (src/futures/futures-script-keys.ts), so adding three would renumber all six. A
  user's index is always built here: a trade's maker is met in the book.
    P..'trades:'..kind..':'..pair        zset, score = trade id, member = the record (below)
    P..'tradetimes:'..kind..':'..pair    zset, score = command time (ms), member = the first trade
                                          id of the first command at that time, 16 digits: time ->
                                          id in O(log n)
    P..'utrades:'..kind..':'..pair..':'..user  zset, score = trade id, member = id..':t' (taker)
                                          or id..':m' (maker): a user's trades on the market
    P..'config:tradeHistoryMs'           retention in ms (set by the service at start; 7 days without)
  Record: fields joined by '|' (user ids never hold one): id ts p q side tk mk tu mu tf mf and, on
  futures, tpnl mpnl tpos mpos tl ml tt. A trade's time is its command's, raised to the market's
  previous trade time when clocks disagree, so time order is id order.
  Trimming on write, checked by a market's first command of each second of trade time (the
  others skip the retention GET and the oldest-time read): records older than the retention go,
  with their time and user index entries (a user's index is trimmed when that user trades again;
  reads never go below the oldest record). A record may so outlive the retention by up to a second.
]]
--- @include "includes/rcall"
--- @include "includes/fmt"
--- @include "includes/globals"

-- Its two constants are literals where they are used (the library's top level is near Lua's 200
-- locals): the retention without config, 7 days (604800000 ms), and at most 1000 records a ZADD.

-- A market's keys (above) by kind, engine prefix and pair: { records, times, users (a user's index
-- is this and the user id), retention }. Made by the market's first command and kept while the
-- library is loaded, as they are a function of the three alone: a command reads them, four
-- concatenations fewer.
local HISTORY_KEYS = { spot = {}, futures = {} }

local function historyKeysOf(P, kind, pair)
  local byP = HISTORY_KEYS[kind][P]
  local keys = byP and byP[pair]
  if keys then return keys end
  if not byP then
    byP = {}
    HISTORY_KEYS[kind][P] = byP
  end
  local suffix = kind .. ':' .. pair
  keys = { records = P .. 'trades:' .. suffix, times = P .. 'tradetimes:' .. suffix,
    users = P .. 'utrades:' .. suffix .. ':', retention = P .. 'config:tradeHistoryMs' }
  byP[pair] = keys
  return keys
end

local function recordTrades(ctx)
  local events = ctx.events
  local from
  -- a packed event is a string (includes/packedEvent), and a string's field is its library's: nil
  for i = 1, #events do
    if events[i].e == 'trade' then
      from = i
      break
    end
  end
  if not from then return end
  local P, pair = ctx.P, ctx.pair
  local futures = ctx.fut ~= nil
  local kind = 'spot'
  if futures then kind = 'futures' end
  local keys = historyKeysOf(P, kind, pair)
  local recKey, timeKey, retentionKey = keys.records, keys.times, keys.retention
  local given = ctx.keys and ctx.keys.history
  if given then recKey, timeKey, retentionKey = given.records, given.times, given.retention end

  -- numbers read by arithmetic, globals (redis, tonumber, string) not looked up: ~270 instructions each
  local call = RCALL or rcallOf()
  local ts = ctx.ts + 0
  local last = call('ZRANGE', timeKey, '-1', '-1', 'WITHSCORES')
  local lastTs = last[2] and last[2] + 0
  -- at or before the index's last time, the trade time is that one and its text the reply's: the
  -- index holds fmt's integers, and Redis prints an integer score as fmt does (below 2^53)
  local tsText
  if lastTs and lastTs >= ts then ts, tsText = lastTs, last[2] else tsText = fmt(ts) end
  -- a time the index already holds keeps its entry, the earlier command's first id: every lookup
  -- (the first entry at or after a time, src/market-data/trade-history.ts, and the trim below)
  -- finds that one before this command's, which would never be read
  local firstId = events[from].id
  if ts ~= lastTs then call('ZADD', timeKey, tsText, fmt016(firstId + 0, firstId)) end
  -- the first command of a second of trade time checks the retention below (ts and lastTs are
  -- non-negative integers, floor(x / 1000) is (x - x % 1000) / 1000); it then trims the index of
  -- each user of its trades, named here before the trades are packed
  local trimmed
  if lastTs and ts - ts % 1000 ~= lastTs - lastTs % 1000 then trimmed = {} end

  -- the records in one ZADD (a command costs far more than the table of its arguments; at most
  -- 1000 a command, well inside unpack's stack), each user's index entries one ZADD per
  -- trade: grouped per user they measured more instructions on futures, the users of its batches
  -- being mostly all different. A context with `tradesByUser` (a kept table: placeSpotOrders'
  -- batch of up to 64 orders, where a market's active users trade several times a call) has them
  -- grouped, one ZADD per user a call.
  local users = keys.users
  local unpackAll = TUNPACK or tunpackOf()
  local byUser = ctx.tradesByUser
  -- the array sized for a batch's usual four trades by its constructor: grown from empty it
  -- rehashed at 1, 2, 4 and 8 entries
  local recs, n = { nil, nil, nil, nil, nil, nil, nil, nil }, 0
  for i = from, #events do
    local t = events[i]
    if t.e == 'trade' then
      local id, tu, mu = t.id, t.tu, t.mu
      if byUser then
        local g = byUser[tu]
        if g then g[#g + 1], g[#g + 2] = id, id .. ':t' else byUser[tu] = { id, id .. ':t' } end
        g = byUser[mu]
        if g then g[#g + 1], g[#g + 2] = id, id .. ':m' else byUser[mu] = { id, id .. ':m' } end
      else
        call('ZADD', users .. tu, id, id .. ':t')
        call('ZADD', users .. mu, id, id .. ':m')
      end
      if trimmed then trimmed[tu], trimmed[mu] = true, true end
      if n == 2000 then -- 1000 records
        call('ZADD', recKey, unpackAll(recs, 1, n))
        n = 0
      end
      -- its record (above): one concatenation of the `trade` event's fields, already strings, no
      -- string made for a part of it (each new string is hashed whole). The settlement's fields come
      -- as one text, `tail` (includes/matchOrder): spot's end at mf
      local rec = id .. '|' .. tsText .. '|' .. t.p .. '|' .. t.q .. '|' .. t.side .. '|' .. t.tk .. '|' .. t.mk
        .. '|' .. tu .. '|' .. mu .. '|' .. t.tail
      recs[n + 1], recs[n + 2] = id, rec
      -- the event packed (includes/packedEvent): trade|<the record>, then |to|mo on futures (om)
      events[i] = 'trade|' .. rec .. (t.om or '')
      n = n + 2
    end
  end
  call('ZADD', recKey, unpackAll(recs, 1, n))
  if byUser then
    -- at most 64 orders' trades a user (a sweep's many fills stay well inside unpack's stack)
    for user, g in TNEXT or tnextOf(), byUser do
      call('ZADD', users .. user, unpackAll(g))
      byUser[user] = nil
    end
  end

  -- trim by time, only when the oldest command is past the retention; checked by the first command
  -- of each second of trade time (a market's first command has nothing to trim)
  if not trimmed then return end
  local keepMs = tonumber(redis.call('GET', retentionKey) or 604800000) -- 7 days
  local cutoff = ts - keepMs
  local oldest = redis.call('ZRANGE', timeKey, '0', '0', 'WITHSCORES')
  if tonumber(oldest[2]) >= cutoff then return end
  local kept = redis.call('ZRANGEBYSCORE', timeKey, string.format('%d', cutoff), '+inf', 'LIMIT', '0', '1')
  local firstKept = '(' .. string.format('%d', tonumber(kept[1]))
  redis.call('ZREMRANGEBYSCORE', timeKey, '-inf', '(' .. string.format('%d', cutoff))
  redis.call('ZREMRANGEBYSCORE', recKey, '-inf', firstKept)
  -- the users of this command's trades, each once
  for user in pairs(trimmed) do
    redis.call('ZREMRANGEBYSCORE', users .. user, '-inf', firstKept)
  end
end
