--[[
  Places a batch of spot orders on one market, in the order given, each exactly as if it came
  alone: idempotency check, post-only check, reservation, matching, resting the rest of a limit
  order. A rejected order changes nothing and does not stop the others. The batch is one atomic
  step with one event entry: group commit (docs/performance.md), the API sends together what
  arrived while the market's previous call ran; an order on a quiet market is a batch of one.

  Input: n orders; the file name says 15 keys plus 5 per order.
    KEYS[1..12] the market's keys (includes/spot/spotMarketKeys):
    KEYS[1]  order id counter           KEYS[7]  level quantities bids
    KEYS[2]  trade id counter           KEYS[8]  level quantities asks
    KEYS[3]  book bids                  KEYS[9]  book sequence
    KEYS[4]  book asks                  KEYS[10] market event stream
    KEYS[5]  level prices bids          KEYS[11] market last price
    KEYS[6]  level prices asks          KEYS[12] fees collected (hash by currency)
    KEYS[13..15] the market's trade history (includes/tradeHistory):
    KEYS[13] trade records              KEYS[15] retention, ms
    KEYS[14] trade time index
    per order i, from k = 15 + 5 (i - 1):
    KEYS[k+1] user's spot orders (zset by id)
    KEYS[k+2] user's open orders on this pair (set)
    KEYS[k+3] user's clientOrderId -> order id, or `@<shard>` at home (hash)
    KEYS[k+4] user's available balances (hash by currency)
    KEYS[k+5] user's reserved balances (hash by currency)
    ARGV[1]  engine key prefix          ARGV[6]  base minor units per lot
    ARGV[2]  pair code                  ARGV[7]  maker fee, ppm
    ARGV[3]  base currency code         ARGV[8]  taker fee, ppm
    ARGV[4]  quote currency code        ARGV[9]  stream MAXLEN
    ARGV[5]  quote minor units per tick x lot
    per order i, from a = 9 + 10 (i - 1):
    ARGV[a+1] user id                   ARGV[a+6]  quote budget, minor units (market buy only, else '')
    ARGV[a+2] side: buy | sell          ARGV[a+7]  postOnly 0 | 1
    ARGV[a+3] type: limit | market      ARGV[a+8]  self-trade prevention 0-3
    ARGV[a+4] price in ticks ('' market) ARGV[a+9] clientOrderId ('' for none)
    ARGV[a+5] amount in lots ('' market buy by quote)   ARGV[a+10] timestamp, ms
  Keys built while running (includes/keys, from ARGV[1]): each new order's hash (its id comes from
    the counter); for each maker met in the book its order hash, its owner's wallet and open orders
    on the pair; a DUP reply reads the earlier order's hash; each trader's index in the trade
    history (its makers are met in the book); the shard's balance sequence (includes/userEvents).
  Output: one reply per order, in order:
    {'OK', id, status, filled, filledQuote, fee, rsv}  placed (matched, rested, or ended); the
                                            caller knows the rest of the order it sent
    {'DUP', id, order hash as a flat list}  clientOrderId already used by this user: nothing done
                                            (the record layout of includes/spotOrder)
    {'ERR', code, detail}                   rejected, nothing changed:
      ORDER_POST_ONLY_WOULD_TAKE, INSUFFICIENT_BALANCE, NOTIONAL_TOO_LARGE,
      CLIENT_ORDER_ID_ELSEWHERE (detail `@<shard>`: the user's home registry gave the clientOrderId
      to an order on that shard; lua/spot/claimClientOrderId-1.lua)
    {'ERR', 'ENGINE_ERROR', message}        a runtime error (a bug) in this order or an earlier
                                            one of the batch; earlier orders stay placed, the
                                            failing one leaves no trace (includes/undoLog: its
                                            writes, balance changes and events are undone)
  Events: one entry on KEYS[10]: per order accepted, trade*, done*, st* (each maker's state it
  wrote), then its own new and st; then, for the batch, bal* (each wallet it moved, per user and
  currency, as it stands after the batch: includes/userEvents walletStates) and book* (see
  includes/publishEvents, includes/packedEvent).
]]
--- @include "includes/matchOrder"
--- @include "includes/publishEvents"
--- @include "includes/spot/spotSettlement"
--- @include "includes/spot/spotOrder"
--- @include "includes/spot/spotBatch"
--- @include "includes/safeInt"
--- @include "includes/fmt"
--- @include "includes/undoLog"
--- @include "includes/packedEvent"
--- @include "includes/idCounter"
--- @include "includes/operationRecord"
--- @include "includes/userEvents"

-- globals once a call, not once an order: a lookup costs ~270 instructions (includes/globals)
local rcall, tonumber, pcall, tostring = redis.call, tonumber, pcall, tostring
local n = (#KEYS - 15) / 5
local P, pair = ARGV[1], ARGV[2]
-- the call's context, kept across calls (includes/spot/spotBatch), with the call's ids (ctx.ids)
local ctx = spotBatch(KEYS, ARGV, n)
local spot, ids = ctx.spot, ctx.ids

-- One order, its keys from KEYS[k+1] and its arguments from ARGV[a+1]; returns its reply.
local function placeOne(k, a)
  local userOrdersKey, userOpenKey, clidKey, availKey, rsvKey = KEYS[k + 1], KEYS[k + 2], KEYS[k + 3],
    KEYS[k + 4], KEYS[k + 5]
  local user, side, otype = ARGV[a + 1], ARGV[a + 2], ARGV[a + 3]
  local priceText, amountText = ARGV[a + 4], ARGV[a + 5]
  local price, amount, budget = tonumber(priceText), tonumber(amountText), tonumber(ARGV[a + 6])
  local postOnly, stp, clid, ts = ARGV[a + 7] == '1', tonumber(ARGV[a + 8]), ARGV[a + 9], ARGV[a + 10]

  if clid ~= '' then
    local existing = rcall('HGET', clidKey, clid)
    if existing then
      -- `@<shard>`: at the user's home, a clientOrderId claimed by an order on another shard
      if string.byte(existing) == 64 then return { 'ERR', 'CLIENT_ORDER_ID_ELSEWHERE', existing } end
      return { 'DUP', existing, rcall('HGETALL', orderKey(P, existing)) }
    end
  end

  -- What the order reserves, in minor units of the currency it pays with.
  local reserveCur = spotReserveCurrency(ctx, side)
  local reserve
  if side == 'sell' then
    reserve = amount * spot.baseScale
  elseif budget then
    reserve = budget
  else
    reserve = price * amount * spot.quoteScale
  end
  if not isSafe(reserve) or (amount and not isSafe(amount * spot.baseScale))
    or (price and amount and not isSafe(price * amount * spot.quoteScale)) then
    return { 'ERR', 'NOTIONAL_TOO_LARGE', '' }
  end

  -- The opposite best, read once: the post-only check, and where matching starts (or, when it does
  -- not cross, that the order rests without matching).
  local makerId, ticks, member, bestText = bestOrder(ctx, OPPOSITE_SIDE[side])
  local crossing = makerId ~= nil and crosses(side, price, ticks)
  if postOnly and otype == 'limit' and crossing then return { 'ERR', 'ORDER_POST_ONLY_WOULD_TAKE', '' } end

  -- balances move at the end of the batch: what earlier orders of the batch moved counts too. The
  -- stored balance is read once a call (nothing writes it before flushDeltas): a user's next order
  -- of the batch asks no HGET
  local read = ctx.read[availKey]
  local stored = read and read[reserveCur]
  if not stored then
    stored = tonumber(rcall('HGET', availKey, reserveCur) or '0')
    if read then read[reserveCur] = stored else ctx.read[availKey] = { [reserveCur] = stored } end
  end
  local available = stored + pendingDelta(ctx, availKey, reserveCur)
  if available < reserve then
    return { 'ERR', 'INSUFFICIENT_BALANCE', reserveCur }
  end

  -- Accepted: from here on nothing rejects.
  ctx.ts = ts
  local id = idsNextOrder(ids, KEYS[1])
  ctx.undo.oid = id
  local idText = fmt(id)
  addDelta(ctx, availKey, reserveCur, -reserve)
  addDelta(ctx, rsvKey, reserveCur, reserve)
  ctx.events[#ctx.events + 1] = acceptedEvent(idText, user, side, otype, priceText, amountText)

  local outcome, status, remaining = 'stopped', nil, amount
  local filled, filledQuote, fee, rsv = '0', '0', '0', nil
  local taker
  if crossing then
    -- its amount's text serves a fill of all of it, its wallet keys its fills (includes/matchOrder,
    -- spotSettlement)
    taker = { id = id, idText = idText, user = user, side = side, limit = price, stp = stp, price = price,
      remaining = amount or math.huge, amount = amount, amountText = amountText, rsv = reserve, filled = 0,
      filledQuote = 0, fee = 0, budget = budget, budgetSpent = nil, availKey = availKey, rsvKey = rsvKey,
      fillFee = nil, fillFeeText = nil }
    outcome = matchOrder(ctx, taker, SPOT_SETTLEMENT, makerId, ticks, member, bestText)
    remaining = taker.remaining
  end

  if otype == 'limit' and outcome == 'stopped' and remaining > 0 then
    -- untouched, it rests as it came: its texts as sent (the service sends canonical integers)
    if taker then restOrder(ctx, ownSide(side), id, price, remaining, priceText, nil, idText)
    else restOrder(ctx, ownSide(side), id, price, remaining, priceText, amountText, idText) end
    -- a new id: not in the set before
    if rcall('SADD', userOpenKey, idText) == 1 then undoRemember(ctx, 's', userOpenKey, idText, false) end
    if taker and taker.filled > 0 then status = 'partiallyFilled' else status = 'open' end
  else
    -- a market buy that spent its budget is filled; any other early end kills the rest (rule 4)
    if outcome == 'done' or (taker and taker.budgetSpent and taker.filled > 0) then
      status = 'filled'
    else
      status = 'expired'
    end
    -- the order is over: whatever it still reserves goes back
    local left = reserve
    if taker then left = taker.rsv end
    if left > 0 then
      addDelta(ctx, rsvKey, reserveCur, -left)
      addDelta(ctx, availKey, reserveCur, left)
      if taker then taker.rsv = 0 end
    end
    rsv = '0'
    ctx.events[#ctx.events + 1] = doneEvent(idText, user, status)
  end

  if taker then
    -- filled whole: its amount as sent is the filled text (no printing)
    if taker.filled == amount then filled = amountText else filled = fmt(taker.filled) end
    -- its fee's text from its last fill (includes/spot/spotSettlement) when that fill's fee is all it paid
    filledQuote, fee = fmt(taker.filledQuote), taker.fee == taker.fillFee and taker.fillFeeText or fmt(taker.fee)
    rsv = rsv or fmt(taker.rsv)
  else
    rsv = rsv or fmt(reserve)
  end
  local key = orderKey(P, idText)
  -- the order's own keys: each new (a new id; the clientOrderId was not there, read above)
  undoRemember(ctx, 'n', key, nil, false)
  local record = spotRecordText(user, pair, side, otype, priceText, amountText, ARGV[a + 6], ARGV[a + 7], ARGV[a + 8],
    ts, clid)
  local state = spotStateText(filled, filledQuote, fee, rsv, status, ts, '1')
  rcall('HSET', key, 'spot', record, 'state', state)
  -- the private stream's (docs/events.md): the record and its first state, after the order's fills
  local events = ctx.events
  events[#events + 1] = ORDER_EVENTS.new(idText, record)
  events[#events + 1] = ORDER_EVENTS.state(idText, user, state)
  undoRemember(ctx, 'z', userOrdersKey, idText, false)
  rcall('ZADD', userOrdersKey, idText, idText)
  if clid ~= '' then
    undoRemember(ctx, 'h', clidKey, clid, false)
    rcall('HSET', clidKey, clid, idText)
  end
  return { 'OK', idText, status, filled, filledQuote, fee, rsv }
end

local replies = { nil, nil, nil, nil }
for i = 1, n do
  undoBegin(ctx)
  local ok, reply = pcall(placeOne, 15 + 5 * (i - 1), 9 + 10 * (i - 1))
  if not ok then
    -- A runtime error is a bug, never a business rejection. This order is undone (its writes to
    -- the book and makers, its balance changes, events and ids); the orders before it are placed
    -- and written in full below; this order and the rest of the batch answer ENGINE_ERROR.
    undoRollback(ctx)
    for j = i, n do replies[j] = { 'ERR', 'ENGINE_ERROR', tostring(reply) } end
    break
  end
  replies[i] = reply
end
ctx.undo = nil
-- the id counters as one INCR per id would have left them
idsWrite(ids, KEYS[1], KEYS[2])
if #ctx.events > 0 then
  flushDeltas(ctx)
  userEvents.walletStates(ctx)
  publishEvents(ctx)
end
-- the call went through: its tables serve the next one (includes/spot/spotBatch)
ctx.inUse = false
-- every reply is a list of strings, a DUP's third a list of strings (includes/operationRecord)
if n > 0 then answerAsRecord(replies) end
return replies
