#!lua name=spotfloor
--[[
  The floor of a spot order in this design (bench:matching, profile:spot, docs/performance.md): only
  the Redis commands an order of lua/spot/placeSpotOrders cannot do without, with as little Lua
  around them as will issue them, no checks, no undo log, no event JSON. Like the futures floor
  (futures-floor.lua) each order issues its own commands: an id (INCR) and its balance writes per
  order, where the engine may share them within a call. What it costs is what the engine's script
  is read against.

  A resting limit order: its balance (HGET), the opposite best (ZRANGE), an id (INCR), the book
  (ZADD), its level (HINCRBY; ZADD of the level's price when the level is new), its available and
  reserved balances (HINCRBY each), its record (HSET of two fields), the user's order index (ZADD)
  and open orders (SADD).
  A crossing limit order that fills one resting maker whole: its balance (HGET), the best (ZRANGE),
  the maker's record (HMGET), an id and a trade id (INCR), the maker off the book (ZREM) and its level
  (HINCRBY; HDEL and ZREM when the level empties), the taker's two currencies (HINCRBY each), the
  maker's reserved and available balances (HINCRBY each), the fees in both currencies (HINCRBY
  each), the maker's state (HSET) and open orders (SREM), the taker's record (HSET) and order index
  (ZADD), the trade's history record and both users' trade indexes (ZADD).
  Per call: the exactly-once record (GET, SET), the book sequence (INCR), the event entry (XADD),
  and on a crossing call the last price (SET) and the trade time index (ZADD).

  KEYS[1] operation record  KEYS[2] bids  KEYS[3] asks  KEYS[4] level prices bids  KEYS[5] level
    prices asks  KEYS[6] level quantities bids  KEYS[7] level quantities asks  KEYS[8] order ids
    KEYS[9] trade ids  KEYS[10] events  KEYS[11] book sequence  KEYS[12] fees  KEYS[13] last price
    KEYS[14] trade records  KEYS[15] trade time index; per order i, from k = 15 + 4 (i - 1):
    KEYS[k+1] available balances  KEYS[k+2] reserved balances  KEYS[k+3] the user's order index
    KEYS[k+4] the user's open orders
  ARGV[1] key prefix  ARGV[2] quote minor units per tick x lot  ARGV[3] base minor units per lot
    ARGV[4] timestamp, ms; per order, from a = 4 + 4 (i - 1): ARGV[a+1] user id  ARGV[a+2] side
    ARGV[a+3] price, ticks  ARGV[a+4] amount, lots
  Output: the number of orders.
]]

-- One call: the exactly-once record's read, `place` per order (k, a: where its KEYS and ARGV
-- start; it answers the order's id), the book sequence, the event entry, the record written.
local function eachOrder(KEYS, ARGV, place)
  redis.call('GET', KEYS[1])
  local n, ids = (#KEYS - 15) / 4, {}
  for i = 1, n do ids[i] = place(KEYS, ARGV, 15 + 4 * (i - 1), 4 + 4 * (i - 1)) end
  redis.call('INCR', KEYS[11])
  redis.call('XADD', KEYS[10], 'MAXLEN', '~', '1000000', '*', 'ev', table.concat(ids, ','))
  redis.call('SET', KEYS[1], '1', 'EX', '60')
  return n
end

local function resting(KEYS, ARGV, k, a)
  local buy, price, amount = ARGV[a + 2] == 'buy', ARGV[a + 3], ARGV[a + 4]
  local cur, reserve = 'BTC', tonumber(amount) * tonumber(ARGV[3])
  if buy then cur, reserve = 'USDT', tonumber(price) * tonumber(amount) * tonumber(ARGV[2]) end
  redis.call('HGET', KEYS[k + 1], cur)
  redis.call('ZRANGE', buy and KEYS[3] or KEYS[2], '0', '0', 'WITHSCORES')
  local idText = string.format('%d', redis.call('INCR', KEYS[8]))
  local score = buy and '-' .. price or price
  redis.call('ZADD', buy and KEYS[2] or KEYS[3], score, string.format('%016d', idText))
  if redis.call('HINCRBY', buy and KEYS[6] or KEYS[7], price, amount) == tonumber(amount) then
    redis.call('ZADD', buy and KEYS[4] or KEYS[5], score, price)
  end
  local rsvText = string.format('%d', reserve)
  redis.call('HINCRBY', KEYS[k + 1], cur, '-' .. rsvText)
  redis.call('HINCRBY', KEYS[k + 2], cur, rsvText)
  redis.call('HSET', ARGV[1] .. 'order:' .. idText, 'spot', ARGV[a + 1] .. '|' .. ARGV[a + 2] .. '|' .. price .. '|' .. amount,
    'state', '0|0|0|' .. rsvText .. '|open|' .. ARGV[4])
  redis.call('ZADD', KEYS[k + 3], idText, idText)
  redis.call('SADD', KEYS[k + 4], idText)
  return idText
end

local function crossing(KEYS, ARGV, k, a)
  local user, buy, amount = ARGV[a + 1], ARGV[a + 2] == 'buy', ARGV[a + 4]
  local pay, get = 'BTC', 'USDT'
  if buy then pay, get = 'USDT', 'BTC' end
  redis.call('HGET', KEYS[k + 1], pay)
  local book = buy and KEYS[3] or KEYS[2]
  local top = redis.call('ZRANGE', book, '0', '0', 'WITHSCORES')
  local p = buy and top[2] or string.sub(top[2], 2)
  local makerId = string.format('%d', tonumber(top[1]))
  local makerKey = ARGV[1] .. 'order:' .. makerId
  local maker = redis.call('HMGET', makerKey, 'spot', 'state')
  local mu = string.match(maker[1], '^([^|]*)|')
  local idText = string.format('%d', redis.call('INCR', KEYS[8]))
  local tradeText = string.format('%d', redis.call('INCR', KEYS[9]))
  redis.call('ZREM', book, top[1])
  local lvl = buy and KEYS[7] or KEYS[6]
  if redis.call('HINCRBY', lvl, p, '-' .. amount) <= 0 then
    redis.call('HDEL', lvl, p)
    redis.call('ZREM', buy and KEYS[5] or KEYS[4], p)
  end
  local quote = string.format('%d', tonumber(p) * tonumber(amount) * tonumber(ARGV[2]))
  local base = string.format('%d', tonumber(amount) * tonumber(ARGV[3]))
  local paid, got = quote, base
  if not buy then paid, got = base, quote end
  redis.call('HINCRBY', KEYS[k + 1], pay, '-' .. paid)
  redis.call('HINCRBY', KEYS[k + 1], get, got)
  redis.call('HINCRBY', ARGV[1] .. 'wallet:' .. mu .. ':rsv', get, '-' .. got)
  redis.call('HINCRBY', ARGV[1] .. 'wallet:' .. mu .. ':avail', pay, paid)
  redis.call('HINCRBY', KEYS[12], 'BTC', '1')
  redis.call('HINCRBY', KEYS[12], 'USDT', '1')
  redis.call('HSET', makerKey, 'state', amount .. '|' .. quote .. '|1|0|filled|' .. ARGV[4])
  redis.call('SREM', ARGV[1] .. 'uopen:' .. mu, makerId)
  redis.call('HSET', ARGV[1] .. 'order:' .. idText, 'spot', user .. '|' .. ARGV[a + 2] .. '|' .. ARGV[a + 3] .. '|' .. amount,
    'state', amount .. '|' .. quote .. '|1|0|filled|' .. ARGV[4])
  redis.call('ZADD', KEYS[k + 3], idText, idText)
  redis.call('ZADD', KEYS[14], tradeText, tradeText .. '|' .. ARGV[4] .. '|' .. p .. '|' .. amount .. '|' .. idText .. '|' .. makerId)
  redis.call('ZADD', ARGV[1] .. 'utrades:' .. user, tradeText, tradeText .. ':t')
  redis.call('ZADD', ARGV[1] .. 'utrades:' .. mu, tradeText, tradeText .. ':m')
  return idText
end

redis.register_function('spotFloorResting', function(KEYS, ARGV) return eachOrder(KEYS, ARGV, resting) end)
redis.register_function('spotFloorCrossing', function(KEYS, ARGV)
  local n = eachOrder(KEYS, ARGV, crossing)
  redis.call('SET', KEYS[13], '5000000')
  redis.call('ZADD', KEYS[15], ARGV[4], ARGV[4])
  return n
end)
