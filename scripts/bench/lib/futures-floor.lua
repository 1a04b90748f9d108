#!lua name=futuresfloor
--[[
  The floor of a futures order in this design (npm run profile:futures, docs/performance.md): only
  the Redis commands an order of lua/futures/createFuturesOrders cannot do without, with as little
  Lua around them as will issue them, no checks, no event JSON. What it costs is what no version of
  the engine's script can go below while it keeps the same data in Redis.

  A resting limit order: its account (HMGET), an id (INCR), the opposite best (ZRANGE), the book
  (ZADD) and its level (HINCRBY), its account's balance and locked margin (HSET), its record (HSET),
  its account's order index (ZADD). A crossing order that fills one resting maker and makes both a
  position: its account, the best (ZRANGE), the maker's record (HMGET), an id and a trade id (INCR),
  the maker off the book (ZREM) and its level (HINCRBY), both accounts (HSET; HINCRBY of the maker's
  two fields), the fees (HINCRBY), both records (HSET), both positions' liquidation index (ZADD),
  the taker's order index (ZADD), the trade history's record and two user indexes (ZADD). Per call:
  the exactly-once record (GET, SET), the book sequence (INCR), the event entry (XADD).

  KEYS[1] operation record  KEYS[2] bids  KEYS[3] asks  KEYS[4] level quantities (one hash, both
    sides)  KEYS[5] order ids  KEYS[6] trade ids  KEYS[7] events  KEYS[8] book sequence  KEYS[9] fees
    KEYS[10] liquidation index  KEYS[11] trade records; per order i, from k = 11 + 2 (i - 1):
    KEYS[k+1] the account hash  KEYS[k+2] the account's order index
  ARGV[1] key prefix; per order, from a = 1 + 4 (i - 1): ARGV[a+1] account id  ARGV[a+2] side
    ARGV[a+3] price, ticks  ARGV[a+4] amount, lots
  Output: the number of orders.
]]

-- One call: the exactly-once record's read, `place` per order (k, a: where its KEYS and ARGV
-- start; it answers the order's id), the book sequence, the event entry, the record written.
local function eachOrder(KEYS, ARGV, place)
  redis.call('GET', KEYS[1])
  local n, ids = (#KEYS - 11) / 2, {}
  for i = 1, n do ids[i] = place(KEYS, ARGV, 11 + 2 * (i - 1), 1 + 4 * (i - 1)) end
  redis.call('INCR', KEYS[8])
  redis.call('XADD', KEYS[7], 'MAXLEN', '~', '1000000', '*', 'ev', table.concat(ids, ','))
  redis.call('SET', KEYS[1], '1', 'EX', '60')
  return n
end

local function resting(KEYS, ARGV, k, a)
  local acctKey, buy, price, amount = KEYS[k + 1], ARGV[a + 2] == 'buy', ARGV[a + 3], ARGV[a + 4]
  local acct = redis.call('HMGET', acctKey, 'user', 'currency', 'lev', 'balance', 'locked')
  local rsv = math.floor(tonumber(price) * tonumber(amount) / tonumber(acct[3]))
  redis.call('ZRANGE', buy and KEYS[3] or KEYS[2], '0', '0', 'WITHSCORES')
  local idText = string.format('%d', redis.call('INCR', KEYS[5]))
  redis.call('ZADD', buy and KEYS[2] or KEYS[3], buy and '-' .. price or price, string.format('%016d', idText))
  redis.call('HINCRBY', KEYS[4], price, amount)
  redis.call('HSET', acctKey, 'balance', string.format('%d', tonumber(acct[4]) - rsv),
    'locked', string.format('%d', tonumber(acct[5]) + rsv))
  redis.call('HSET', ARGV[1] .. 'order:' .. idText, 'f', idText .. '|' .. ARGV[a + 1] .. '|' .. price .. '|' .. amount,
    's', '0|' .. string.format('%d', rsv))
  redis.call('ZADD', KEYS[k + 2], idText, idText)
  return idText
end

local function crossing(KEYS, ARGV, k, a)
  local acctKey, acctId, buy, amount = KEYS[k + 1], ARGV[a + 1], ARGV[a + 2] == 'buy', ARGV[a + 4]
  local acct = redis.call('HMGET', acctKey, 'user', 'currency', 'lev', 'balance', 'locked')
  local book = buy and KEYS[3] or KEYS[2]
  local top = redis.call('ZRANGE', book, '0', '0', 'WITHSCORES')
  local p = buy and top[2] or string.sub(top[2], 2)
  local makerKey = ARGV[1] .. 'order:' .. tonumber(top[1])
  local maker = redis.call('HMGET', makerKey, 'f', 's')
  local mid, macct = string.match(maker[1], '^([^|]*)|([^|]*)|')
  local idText = string.format('%d', redis.call('INCR', KEYS[5]))
  local tradeText = string.format('%d', redis.call('INCR', KEYS[6]))
  redis.call('ZREM', book, top[1])
  redis.call('HINCRBY', KEYS[4], p, '-' .. amount)
  local m = math.floor(tonumber(p) * tonumber(amount) / tonumber(acct[3]))
  redis.call('HSET', acctKey, 'balance', string.format('%d', tonumber(acct[4]) - m),
    'locked', string.format('%d', tonumber(acct[5]) + m))
  local makerAcct = ARGV[1] .. 'facct:' .. macct
  redis.call('HINCRBY', makerAcct, 'balance', '-1')
  redis.call('HINCRBY', makerAcct, 'locked', '1')
  redis.call('HINCRBY', KEYS[9], 'USDT', '2')
  local mText = string.format('%d', m)
  redis.call('HSET', makerKey, 's', amount .. '|' .. mText .. '|' .. string.format('%d', m + 1))
  redis.call('HSET', ARGV[1] .. 'order:' .. idText, 'f', idText .. '|' .. acctId .. '|' .. p .. '|' .. amount,
    's', amount .. '|' .. mText)
  redis.call('ZADD', KEYS[10], string.format('%d', m), mid)
  redis.call('ZADD', KEYS[10], string.format('%d', m + 1), idText)
  redis.call('ZADD', KEYS[k + 2], idText, idText)
  redis.call('ZADD', KEYS[11], tradeText, tradeText .. '|' .. p .. '|' .. amount .. '|' .. idText .. '|' .. mid)
  redis.call('ZADD', ARGV[1] .. 'utrades:' .. acctId, tradeText, tradeText .. ':t')
  redis.call('ZADD', ARGV[1] .. 'utrades:' .. macct, tradeText, tradeText .. ':m')
  return idText
end

redis.register_function('futuresFloorResting', function(KEYS, ARGV) return eachOrder(KEYS, ARGV, resting) end)
redis.register_function('futuresFloorCrossing', function(KEYS, ARGV) return eachOrder(KEYS, ARGV, crossing) end)
