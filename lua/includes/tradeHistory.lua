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
    P..'tradetimes:'..kind..':'..pair    zset, score = command time (ms), member = the command's
                                          first trade id, 16 digits: time -> id in O(log n)
    P..'utrades:'..kind..':'..pair..':'..user  zset, score = trade id, member = id..':t' (taker)
                                          or id..':m' (maker): a user's trades on the market
    P..'config:tradeHistoryMs'           retention in ms (set by the service at start; 7 days without)
  Record: fields joined by '|' (user ids never hold one): id ts p q side tk mk tu mu tf mf and, on
  futures, tpnl mpnl tpos mpos tl ml tt. A trade's time is its command's, raised to the market's
  previous trade time when clocks disagree, so time order is id order.
  Trimming on write: records older than the retention go, with their time and user index entries
  (a user's index is trimmed when that user trades again; reads never go below the oldest record).
]]

local TRADE_HISTORY_DEFAULT_MS = 7 * 24 * 3600 * 1000
local TRADE_FIELDS_SPOT = { 'id', 'ts', 'p', 'q', 'side', 'tk', 'mk', 'tu', 'mu', 'tf', 'mf' }
local TRADE_FIELDS_FUTURES = { 'tpnl', 'mpnl', 'tpos', 'mpos', 'tl', 'ml', 'tt' }

local function tradeHistoryKeys(P, kind, pair)
  local suffix = kind .. ':' .. pair
  return P .. 'trades:' .. suffix, P .. 'tradetimes:' .. suffix
end

local function userTradesKey(P, kind, pair, user)
  return P .. 'utrades:' .. kind .. ':' .. pair .. ':' .. user
end

local function tradeHistoryRetentionKey(P)
  return P .. 'config:tradeHistoryMs'
end

local function recordTrades(ctx)
  local trades = {}
  for _, ev in ipairs(ctx.events) do
    if ev.e == 'trade' then trades[#trades + 1] = ev end
  end
  if #trades == 0 then return end
  local P, pair = ctx.P, ctx.pair
  local kind = 'spot'
  if ctx.fut then kind = 'futures' end
  local recKey, timeKey, retentionKey
  local given = ctx.keys and ctx.keys.history
  if given then
    recKey, timeKey, retentionKey = given.records, given.times, given.retention
  else
    recKey, timeKey = tradeHistoryKeys(P, kind, pair)
    retentionKey = tradeHistoryRetentionKey(P)
  end

  local ts = tonumber(ctx.ts)
  local last = redis.call('ZRANGE', timeKey, '-1', '-1', 'WITHSCORES')
  if #last > 0 and tonumber(last[2]) > ts then ts = tonumber(last[2]) end
  local tsText = string.format('%d', ts)
  redis.call('ZADD', timeKey, tsText, string.format('%016d', tonumber(trades[1].id)))

  local users = {}
  for _, t in ipairs(trades) do
    t.ts = tsText
    local parts = {}
    for i, f in ipairs(TRADE_FIELDS_SPOT) do parts[i] = t[f] or '' end
    if kind == 'futures' then
      for _, f in ipairs(TRADE_FIELDS_FUTURES) do parts[#parts + 1] = t[f] or '' end
    end
    redis.call('ZADD', recKey, t.id, table.concat(parts, '|'))
    redis.call('ZADD', userTradesKey(P, kind, pair, t.tu), t.id, t.id .. ':t')
    redis.call('ZADD', userTradesKey(P, kind, pair, t.mu), t.id, t.id .. ':m')
    users[t.tu] = true
    users[t.mu] = true
    t.ts = nil
  end

  -- trim by time, only when the oldest command is past the retention
  local keepMs = tonumber(redis.call('GET', retentionKey) or TRADE_HISTORY_DEFAULT_MS)
  local cutoff = ts - keepMs
  local oldest = redis.call('ZRANGE', timeKey, '0', '0', 'WITHSCORES')
  if tonumber(oldest[2]) >= cutoff then return end
  local kept = redis.call('ZRANGEBYSCORE', timeKey, string.format('%d', cutoff), '+inf', 'LIMIT', '0', '1')
  local firstKept = '(' .. string.format('%d', tonumber(kept[1]))
  redis.call('ZREMRANGEBYSCORE', timeKey, '-inf', '(' .. string.format('%d', cutoff))
  redis.call('ZREMRANGEBYSCORE', recKey, '-inf', firstKept)
  for user in pairs(users) do
    redis.call('ZREMRANGEBYSCORE', userTradesKey(P, kind, pair, user), '-inf', firstKept)
  end
end
