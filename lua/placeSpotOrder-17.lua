--[[
  Places one spot order: idempotency check, post-only check, reservation, matching, resting the
  rest of a limit order, and the market's event entry, all in one atomic step.

  Input:
    KEYS[1]  order id counter           KEYS[10] market event stream
    KEYS[2]  trade id counter           KEYS[11] market last price
    KEYS[3]  book bids                  KEYS[12] user's spot orders (zset by id)
    KEYS[4]  book asks                  KEYS[13] user's open orders on this pair (set)
    KEYS[5]  level prices bids          KEYS[14] user's clientOrderId -> order id (hash)
    KEYS[6]  level prices asks          KEYS[15] user's available balances (hash by currency)
    KEYS[7]  level quantities bids      KEYS[16] user's reserved balances (hash by currency)
    KEYS[8]  level quantities asks      KEYS[17] fees collected (hash by currency)
    KEYS[9]  book sequence
    ARGV[1]  engine key prefix          ARGV[11] clientOrderId ('' for none)
    ARGV[2]  user id                    ARGV[12] timestamp, ms
    ARGV[3]  pair code                  ARGV[13] base currency code
    ARGV[4]  side: buy | sell           ARGV[14] quote currency code
    ARGV[5]  type: limit | market       ARGV[15] quote minor units per tick x lot
    ARGV[6]  price in ticks ('' market) ARGV[16] base minor units per lot
    ARGV[7]  amount in lots ('' market buy by quote)
    ARGV[8]  quote budget, minor units (market buy only, else '')
    ARGV[9]  postOnly 0 | 1             ARGV[17] maker fee, ppm
    ARGV[10] self-trade prevention 0-3  ARGV[18] taker fee, ppm
                                        ARGV[19] stream MAXLEN
  Output:
    {'OK', id, status, filled, filledQuote, fee, rsv}  placed (matched, rested, or ended); the
                                            caller knows the rest of the order it sent
    {'DUP', id, order hash as a flat list}  clientOrderId already used by this user: nothing done
                                            (the record layout of includes/spotOrder)
    {'ERR', code, detail}                   rejected, nothing changed:
      ORDER_POST_ONLY_WOULD_TAKE, INSUFFICIENT_BALANCE, NOTIONAL_TOO_LARGE
  Events: one entry on KEYS[10]: accepted, trade*, done*, book* (see includes/publishEvents).
]]
local rcall = redis.call
--- @include "includes/matchOrder"
--- @include "includes/publishEvents"
--- @include "includes/spotSettlement"
--- @include "includes/spotOrder"
--- @include "includes/safeInt"
--- @include "includes/fmt"

local orderIdsKey, tradeIdsKey = KEYS[1], KEYS[2]
local userOrdersKey, userOpenKeyArg, clidKey = KEYS[12], KEYS[13], KEYS[14]
local availKey, rsvKey = KEYS[15], KEYS[16]

local P, user, pair, side, otype = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local price, amount, budget = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
local postOnly, stp, clid, ts = ARGV[9] == '1', tonumber(ARGV[10]), ARGV[11], ARGV[12]

if clid ~= '' then
  local existing = rcall('HGET', clidKey, clid)
  if existing then return { 'DUP', existing, rcall('HGETALL', orderKey(P, existing)) } end
end

local ctx = newContext(P, {
  tradeIds = tradeIdsKey,
  book = { bids = KEYS[3], asks = KEYS[4] },
  levels = { bids = KEYS[5], asks = KEYS[6] },
  lvlqty = { bids = KEYS[7], asks = KEYS[8] },
  seq = KEYS[9], events = KEYS[10], last = KEYS[11], fees = KEYS[17],
}, ts, ARGV[19])
ctx.pair = pair
ctx.spot = {
  base = ARGV[13], quote = ARGV[14], quoteScale = tonumber(ARGV[15]), baseScale = tonumber(ARGV[16]),
  makerFee = tonumber(ARGV[17]), takerFee = tonumber(ARGV[18]),
}

-- What the order reserves, in minor units of the currency it pays with.
local reserveCur = spotReserveCurrency(ctx, side)
local reserve
if side == 'sell' then
  reserve = amount * ctx.spot.baseScale
elseif budget then
  reserve = budget
else
  reserve = price * amount * ctx.spot.quoteScale
end
if not isSafe(reserve) or (amount and not isSafe(amount * ctx.spot.baseScale))
  or (price and amount and not isSafe(price * amount * ctx.spot.quoteScale)) then
  return { 'ERR', 'NOTIONAL_TOO_LARGE', '' }
end

if postOnly and otype == 'limit' then
  local _, best = bestOrder(ctx, oppositeSide(side))
  if best and crosses(side, price, best) then return { 'ERR', 'ORDER_POST_ONLY_WOULD_TAKE', '' } end
end

local available = tonumber(rcall('HGET', availKey, reserveCur) or '0')
if available < reserve then
  return { 'ERR', 'INSUFFICIENT_BALANCE', reserveCur }
end

-- Accepted: from here on nothing rejects.
local id = rcall('INCR', orderIdsKey)
local idText = fmt(id)
addDelta(ctx, availKey, reserveCur, -reserve)
addDelta(ctx, rsvKey, reserveCur, reserve)

local taker = { id = id, user = user, side = side, limit = price, stp = stp, price = price,
  remaining = amount or math.huge, rsv = reserve, filled = 0, filledQuote = 0, fee = 0 }
if budget then taker.budget = budget end
ctx.events[1] = { e = 'accepted', id = idText, u = user, side = side, type = otype,
  p = price and fmt(price) or '', a = amount and fmt(amount) or '' }

local outcome = matchOrder(ctx, taker, SPOT_SETTLEMENT)

local status
local rests = otype == 'limit' and outcome == 'stopped' and taker.remaining > 0
if rests then
  restOrder(ctx, ownSide(side), id, price, taker.remaining)
  rcall('SADD', userOpenKeyArg, id)
  if taker.filled > 0 then status = 'partiallyFilled' else status = 'open' end
else
  -- a market buy that spent its budget is filled; any other early end kills the rest (rule 4)
  if outcome == 'done' or (taker.budgetSpent and taker.filled > 0) then
    status = 'filled'
  else
    status = 'expired'
  end
  -- the order is over: whatever it still reserves goes back
  if taker.rsv > 0 then
    addDelta(ctx, rsvKey, reserveCur, -taker.rsv)
    addDelta(ctx, availKey, reserveCur, taker.rsv)
    taker.rsv = 0
  end
  ctx.events[#ctx.events + 1] = { e = 'done', id = idText, u = user, status = status }
end

flushDeltas(ctx)
rcall('HSET', orderKey(P, idText),
  'spot', user .. '|' .. pair .. '|' .. side .. '|' .. otype .. '|' .. ARGV[6] .. '|' .. ARGV[7] .. '|' .. ARGV[8]
    .. '|' .. ARGV[9] .. '|' .. ARGV[10] .. '|' .. ts .. '|' .. clid,
  'state', spotStateText(taker.filled, taker.filledQuote, taker.fee, taker.rsv, status, ts))
rcall('ZADD', userOrdersKey, id, idText)
if clid ~= '' then rcall('HSET', clidKey, clid, id) end
publishEvents(ctx)
return { 'OK', idText, status, fmt(taker.filled), fmt(taker.filledQuote), fmt(taker.fee), fmt(taker.rsv) }
