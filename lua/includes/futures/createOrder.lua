--[[
  One futures order (the futures trade routes, docs/futures.md#endpoints), exactly as if it came alone: idempotency, account and leverage
  checks, TP/SL side check, post-only, margin check at the worst price the order can fill at,
  reservation, matching, resting the rest of a limit order, its writes (fCommit without the event
  entry). lua/futures/createFuturesOrders runs it once per order of a batch (group commit).

  The order is read from KEYS[k+1..k+4] and ARGV[a+1..a+7] (that script's header lists them); the
  batch `b` holds what the orders of one call share: P (engine prefix), pair, maxlen, the
  event entry being built (events, changed levels, lastTicks, ts), the key names built so far
  (accounts, orderKeys: includes/futures/context futuresContextFor), the state of the order and
  trade ids it hands out (includes/idCounter), the fees its orders took (`fees`, currency ->
  amount; the batch writes counters and fees at its end), the one table of an order's known
  account values (acctValues: balance and locked, set anew for each order) and the tracked flags
  of the accounts they met (the context's `tracked`, includes/futures/accountStats). Each order
  starts from a fresh context (b.ctx, emptied for it: futuresBatchContext) and writes its changes
  before the next one starts, so every check of a later order sees the earlier ones as if they had
  been separate calls.
  `b.allocated` is the order id it took, so a batch can give it back when the order fails with a
  runtime error (the batch then drops b.ctx).
]]
--- @include "includes/futures/context"
--- @include "includes/futures/margin"
--- @include "includes/futures/settlement"
--- @include "includes/futures/flush"
--- @include "includes/futures/orderRecord"
--- @include "includes/book"
--- @include "includes/matchOrder"
--- @include "includes/keys"
--- @include "includes/deltas"
--- @include "includes/safeInt"
--- @include "includes/fmt"
--- @include "includes/idCounter"
--- @include "includes/rcall"
--- @include "includes/packedEvent"

-- The caller answers {id, clientOrderId} (the futures trade routes, docs/futures.md#endpoints), so that is all the reply carries, flat (a
-- nested table per order costs its conversion to RESP and to the exactly-once record's JSON).
local function fOrderReply(P, tag, id)
  local t = fReadRecord(orderKey(P, id)) or {}
  return { tag, fmt(tonumber(id)), t.clid or '', t.status }
end

-- The walk to the worst price a market order of `amount` lots can reach: that price and the lots there.
local function fMarketReach(ctx, opp, amount)
  local got, start, checkAt = 0, 0, nil
  while got < amount do
    local lv = redis.call('ZRANGE', ctx.keys.levels[opp], start, start + 49)
    if #lv == 0 then break end
    local qs = redis.call('HMGET', ctx.keys.lvlqty[opp], unpack(lv))
    for i, p in ipairs(lv) do
      checkAt = tonumber(p)
      got = got + tonumber(qs[i])
      if got >= amount then break end
    end
    start = start + 50
  end
  if got < amount then return checkAt, got end
  return checkAt, amount
end

-- Optional ticks ('' none) read by arithmetic (`v + 0`): it converts the string once, tonumber
-- twice (~1,600 instructions against ~600).
local function fOptTicks(v)
  if v == '' then return nil end
  return v + 0
end

local function fCreateOrder(KEYS, ARGV, b, k, a)
  local call = RCALL or rcallOf()
  local clidKey, acctKey, acctOrdersKey, acctOpenKey = KEYS[k + 1], KEYS[k + 2], KEYS[k + 3], KEYS[k + 4]
  local P, pair = b.P, b.pair
  -- the price and amount as text: ARGV's are canonical (src/futures/futures-engine.ts)
  local user, side, priceText, amountText, acctId, ts, opts =
    ARGV[a + 1], ARGV[a + 2], ARGV[a + 3], ARGV[a + 4], ARGV[a + 5], ARGV[a + 6], ARGV[a + 7]
  -- '' is a market order's price
  local price, amount = fOptTicks(priceText), amountText + 0
  -- a plain limit order (most of them) comes without options: nothing to read for it. Else one
  -- text, "<market 0|1><0|1 postOnly|I immediate or cancel><stp 0-3>|tp|sl|clientOrderId"; IOC is a
  -- limit order that never rests (post-only and IOC exclude each other)
  local isMarket, postOnly, ioc, stp, tp, sl, clid = false, false, false, 0, nil, nil, ''
  if opts ~= '' then
    local m, f, s
    m, f, s, tp, sl, clid = (TMATCH or matchOf())(opts, '^(.)(.)(.)|([^|]*)|([^|]*)|(.*)$')
    isMarket, postOnly, ioc, stp, tp, sl = m == '1', f == '1', f == 'I', s + 0, fOptTicks(tp), fOptTicks(sl)
    if isMarket then price = nil end
  end

  if clid ~= '' then
    local existing = call('HGET', clidKey, clid)
    if existing then
      -- `@<shard>`: on shard 0, the registry, a clientOrderId claimed by an order on another shard
      if string.byte(existing) == 64 then return { 'ERR', 'CLIENT_ORDER_ID_ELSEWHERE', existing } end
      return fOrderReply(P, 'DUP', existing)
    end
  end

  -- the market as this call's first order read it (no order changes the pair hash)
  if b.market == nil then b.market = futuresMarketFor(KEYS) or false end
  if not b.market then return { 'ERR', 'PAIR_NOT_FOUND', pair } end
  -- the batch's context, emptied for this order: its events and book levels go into the batch's entry
  local ctx = futuresBatchContext(KEYS, b, ts)
  fKnowAccount(ctx, acctId, acctKey, acctOpenKey, acctOrdersKey)
  local acct = call('HMGET', acctKey, 'user', 'currency', 'lev', 'balance', 'stats', 'locked')
  if acct[1] ~= user then return { 'ERR', 'ACCOUNT_NOT_FOUND', acctId } end
  fStatsKnow(ctx, acctId, acct[5])
  local fut = ctx.fut
  if acct[2] ~= fut.cur then return { 'ERR', 'CURRENCY_MISMATCH', fut.cur } end
  local lev = acct[3] + 0
  if lev > fut.maxLev then return { 'ERR', 'LEVERAGE_ABOVE_MAX', fmt(fut.maxLev) } end

  local long = side == 'buy'
  local opp, own = OPPOSITE_SIDE[side], OWN_SIDE[side]
  -- the best opposite price matters to market orders, sells (margin at the bids) and post-only only
  local best, bestRead, bestId, bestMember, bestText = nil, false, nil, nil, nil
  if isMarket or side == 'sell' or postOnly then
    bestRead = true
    bestId, best, bestMember, bestText = bestOrder(ctx, opp)
  end

  -- Reference price of the TP/SL check and the price the margin check is made at.
  local ref, checkAt, checkLots = price, price, amount
  if isMarket then
    if not best then return { 'ERR', 'NO_LIQUIDITY', '' } end
    ref = best
    checkAt, checkLots = fMarketReach(ctx, opp, amount)
  elseif side == 'sell' and best and best > price then
    -- a crossing sell fills at the bids, above its limit: the margin there is higher
    checkAt = best
  end

  if tp and ((long and tp <= ref) or (not long and tp >= ref)) then return { 'ERR', 'INVALID_TRIGGER', 'takeProfit' } end
  if sl and ((long and sl >= ref) or (not long and sl <= ref)) then return { 'ERR', 'INVALID_TRIGGER', 'stopLoss' } end

  if postOnly and not isMarket and best and crosses(side, price, best) then
    return { 'ERR', 'ORDER_POST_ONLY_WOULD_TAKE', '' }
  end

  -- x3 and the price x 2e6: the position's liquidation price is then exact (includes/futures/margin)
  if not isSafe(fNotional(ctx, checkAt, amount) * 3) or not isSafe(checkAt * 2000000) then
    return { 'ERR', 'NOTIONAL_TOO_LARGE', '' }
  end
  local need = fReserve(ctx, checkAt, checkLots, lev)
  local free = (acct[4] or 0) + 0
  -- the detail is the margin this order needs: a caller with margin on another shard tops up that much
  if free < need then return { 'ERR', 'INSUFFICIENT_MARGIN', fmt(need) } end
  -- nothing but this order's deltas writes its account until they are flushed: one HSET then.
  -- One table per batch, both fields set anew for each order (no order sees an earlier one's: the
  -- context's `known` is emptied for each order)
  local locked, kv = (acct[6] or 0) + 0, b.acctValues
  if kv then
    kv.balance, kv.locked = free, locked
  else
    kv = { balance = free, locked = locked }
    b.acctValues = kv
  end
  knowValues(ctx, acctKey, kv)

  -- Accepted: from here on nothing rejects.
  local id = idsNextOrder(b, ctx.keys.orderIds)
  b.allocated = id
  -- the id as text, printed once
  local idText = fmt(id)
  ctx.orderKeys[id] = orderKey(P, idText)
  -- 28 fields with `fixed` (set below), in a hash of 32 slots: a crossing order's fill adds
  -- three (feeOf, feeText: includes/futures/settlement fFill; liqText: includes/futures/triggerIndex
  -- fIndex) and still fits; a 33rd key would rebuild it at 64. So only what is read by name: placed
  -- by this command and in no index (wasOpen nil: includes/futures/accountIndex), not in force yet
  -- (wasActive nil), no close order (closeOrd, '' when absent: includes/futures/orderRecord); the
  -- price's text goes to fFixedText as an argument. tp and sl only when given (a nil field in a
  -- constructor takes a slot too)
  local o = { id = id, idText = idText, amountText = amountText, role = 'open',
    user = user, acct = acctId, side = side, pair = pair,
    price = price, limit = price, amount = amount, filled = 0, remaining = amount, rsv = 0, lev = lev, cost = 0, ecost = 0, openQty = 0,
    margin = 0, imargin = 0, fee = 0, rpnl = 0, funding = 0, stp = stp, status = '10',
    isMarket = isMarket, resting = '0', fixed = false } -- status '10': FST.CREATED
  if tp then o.tp = tp end
  if sl then o.sl = sl end
  ctx.objs[id] = o
  fDirty(ctx, o)
  if not isMarket then
    -- a limit order's check was made for its whole amount: at its own price, that is the reservation
    if checkAt == price then o.rsv = need else o.rsv = fReserve(ctx, price, amount, lev) end
    moveDelta(ctx, acctKey, 'balance', 'locked', o.rsv)
  end
  local events = ctx.events
  events[#events + 1] = acceptedEvent(idText, user, side, isMarket and 'market' or 'limit', priceText, amountText)

  local outcome
  if bestRead and (not bestId or not crosses(side, price, best)) then
    -- the best opposite order read above does not cross: matching would stop at its first look
    outcome = 'stopped'
  else
    -- matching starts from the best order read above, if any (includes/matchOrder)
    outcome = matchOrder(ctx, o, FUTURES_SETTLEMENT, bestId, best, bestMember, bestText)
  end

  local remaining = o.remaining
  if not isMarket and not ioc and outcome == 'stopped' and remaining > 0 and not o.budgetSpent then
    restOrder(ctx, own, id, price, remaining, priceText, remaining == amount and amountText or nil, idText)
    o.resting = '1'
  else
    fReleaseRest(ctx, o)
    if o.filled == 0 and o.budgetSpent then o.status = FST.ERROR end
    local st = 'filled'
    if o.remaining > 0 then st = 'expired' end
    events[#events + 1] = doneEvent(idText, user, st)
  end

  -- written with the order's first flush (fFlush), in one HSET
  o.fixed = fFixedText(o, postOnly and '1' or '0', ts, clid, acct[3], priceText)
  -- fCommit but the event entry, which the batch writes once, and the fees pot, which no order
  -- reads: the batch adds its orders' fees up and writes them once
  b.fees = flushDeltas(ctx, ctx.keys.fees, b.fees)
  fFlush(ctx)
  if ctx.lastTicks then b.lastTicks = ctx.lastTicks end
  b.ts = ts
  if clid ~= '' then call('HSET', clidKey, clid, idText) end
  return { 'OK', idText, clid, o.status }
end
