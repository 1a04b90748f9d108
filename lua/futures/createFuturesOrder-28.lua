--[[
  Places one futures order (SPEC 4.3): idempotency, account and leverage checks, TP/SL side check,
  post-only, margin check at the worst price the order can fill at, reservation, matching, resting
  the rest of a limit order, trigger indices and the market's event entry, all in one atomic step.
  The order becomes a position (status 50) with its first fill (docs/futures.md).

  Input:
    KEYS[1..22] the market's keys (includes/futures/commandKeys lists them: pair hash, book, levels,
      book sequence, events, last price, order and trade ids, fees, insurance fund, pnl pool,
      trigger indices, positions in force)
    KEYS[23] user's futures orders (zset)
    KEYS[24] user's open futures orders on this pair (set)
    KEYS[25] user's futures clientOrderId -> order id (hash)
    KEYS[26] the futures account hash
    KEYS[27] the account's opening orders (zset by id)
    KEYS[28] the account's opening orders that are Created or InPosition (zset by id)
    ARGV[1]  engine key prefix           ARGV[9]  stop loss, ticks ('' none)
    ARGV[2]  user id                     ARGV[10] futures account id
    ARGV[3]  pair code                   ARGV[11] postOnly 0 | 1
    ARGV[4]  side: buy (long) | sell     ARGV[12] self-trade prevention 0-3
    ARGV[5]  isMarket 0 | 1              ARGV[13] clientOrderId ('' for none)
    ARGV[6]  price, ticks ('' market)    ARGV[14] timestamp, ms
    ARGV[7]  amount, lots                ARGV[15] stream MAXLEN
    ARGV[8]  take profit, ticks ('' none)
  Keys built while running (includes/keys, from ARGV[1]): the new order's hash (its id comes from
    the counter) and, for each maker met in the book, its order hash, account hash, account's open
    orders and its owner's open orders on this pair; a DUP reply reads the earlier order's hash.
  Output:
    {'OK', {'id', id, 'clid', clientOrderId, 'status', status}}    placed (matched, rested, or ended)
    {'DUP', {'id', id, 'clid', clientOrderId, 'status', status}}   clientOrderId already used by this
                                                                   user: nothing done
    {'ERR', code, detail}                rejected, nothing changed: PAIR_NOT_FOUND, ACCOUNT_NOT_FOUND,
      CURRENCY_MISMATCH, LEVERAGE_ABOVE_MAX, NO_LIQUIDITY, INVALID_TRIGGER, ORDER_POST_ONLY_WOULD_TAKE,
      NOTIONAL_TOO_LARGE, INSUFFICIENT_MARGIN
  Events: one entry on the futures market stream: accepted, trade*, done*, book*.
]]
local rcall = redis.call
--- @include "includes/futures/context"
--- @include "includes/futures/margin"
--- @include "includes/futures/settlement"
--- @include "includes/futures/flush"
--- @include "includes/book"
--- @include "includes/matchOrder"
--- @include "includes/keys"
--- @include "includes/deltas"
--- @include "includes/safeInt"
--- @include "includes/fmt"

local userOrdersKey, userOpenKeyArg, clidKey, acctKey = KEYS[23], KEYS[24], KEYS[25], KEYS[26]
local acctOrdersKey, acctOpenKey = KEYS[27], KEYS[28]
local P, user, pair, side = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local isMarket = ARGV[5] == '1'
local price, amount = tonumber(ARGV[6]), tonumber(ARGV[7])
local tp, sl, acctId = tonumber(ARGV[8]), tonumber(ARGV[9]), ARGV[10]
local postOnly, stp, clid, ts = ARGV[11] == '1', tonumber(ARGV[12]), ARGV[13], ARGV[14]
if isMarket then price = nil end

-- The caller answers {id, clientOrderId} (SPEC 4.3), so that is all the reply carries.
local function orderReply(tag, id, status)
  local f = rcall('HMGET', orderKey(P, id), 'clid', 'status')
  return { tag, { 'id', fmt(tonumber(id)), 'clid', f[1] or '', 'status', status or f[2] } }
end

if clid ~= '' then
  local existing = rcall('HGET', clidKey, clid)
  if existing then return orderReply('DUP', existing) end
end

local ctx = futuresContextFor(KEYS, P, pair, ts, ARGV[15])
if not ctx then return { 'ERR', 'PAIR_NOT_FOUND', pair } end
fKnowAccount(ctx, acctId, acctKey, acctOpenKey)
fKnowUserOpen(ctx, user, userOpenKeyArg)
local acct = rcall('HMGET', acctKey, 'user', 'currency', 'lev', 'balance')
if acct[1] ~= user then return { 'ERR', 'ACCOUNT_NOT_FOUND', acctId } end
if acct[2] ~= ctx.fut.cur then return { 'ERR', 'CURRENCY_MISMATCH', ctx.fut.cur } end
local lev = tonumber(acct[3])
if lev > ctx.fut.maxLev then return { 'ERR', 'LEVERAGE_ABOVE_MAX', fmt(ctx.fut.maxLev) } end

local opp = oppositeSide(side)
-- the best opposite price matters to market orders, sells (margin at the bids) and post-only only
local best
if isMarket or side == 'sell' or postOnly then
  local _
  _, best = bestOrder(ctx, opp)
end

-- Reference price of the TP/SL check and the price the margin check is made at.
local ref, checkAt, checkLots = price, price, amount
if isMarket then
  if not best then return { 'ERR', 'NO_LIQUIDITY', '' } end
  ref = best
  -- walk the levels to the worst price this order can reach
  local got, start = 0, 0
  while got < amount do
    local lv = rcall('ZRANGE', ctx.keys.levels[opp], start, start + 49)
    if #lv == 0 then break end
    local qs = rcall('HMGET', ctx.keys.lvlqty[opp], unpack(lv))
    for i, p in ipairs(lv) do
      checkAt = tonumber(p)
      got = got + tonumber(qs[i])
      if got >= amount then break end
    end
    start = start + 50
  end
  if got < amount then checkLots = got end
elseif side == 'sell' and best and best > price then
  -- a crossing sell fills at the bids, above its limit: the margin there is higher
  checkAt = best
end

local long = side == 'buy'
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
local free = tonumber(acct[4] or '0')
if free < need then return { 'ERR', 'INSUFFICIENT_MARGIN', '' } end

-- Accepted: from here on nothing rejects.
local id = rcall('INCR', ctx.keys.orderIds)
local o = { id = id, role = 'open', kind = 'futures', user = user, acct = acctId, side = side, pair = pair,
  price = price, limit = price, amount = amount, filled = 0, remaining = amount, rsv = 0, lev = lev, cost = 0, ecost = 0, openQty = 0,
  margin = 0, imargin = 0, fee = 0, rpnl = 0, funding = 0, stp = stp, status = FST.CREATED, tp = tp, sl = sl,
  closeOrd = '', isMarket = isMarket, resting = '0', wasActive = false, wasOpen = false }
ctx.objs[id] = o
fDirty(ctx, o)
if not isMarket then
  o.rsv = fReserve(ctx, price, amount, lev)
  addDelta(ctx, acctKey, 'balance', -o.rsv)
  addDelta(ctx, acctKey, 'locked', o.rsv)
end
ctx.events[1] = { e = 'accepted', id = fmt(id), u = user, side = side, type = isMarket and 'market' or 'limit',
  p = price and fmt(price) or '', a = fmt(amount) }

local outcome = matchOrder(ctx, o, FUTURES_SETTLEMENT)

if not isMarket and outcome == 'stopped' and o.remaining > 0 and not o.budgetSpent then
  restOrder(ctx, ownSide(side), id, price, o.remaining)
  o.resting = '1'
  rcall('SADD', userOpenKeyArg, id)
else
  fReleaseRest(ctx, o)
  if o.filled == 0 and o.budgetSpent then o.status = FST.ERROR end
  local st = 'filled'
  if o.remaining > 0 then st = 'expired' end
  ctx.events[#ctx.events + 1] = { e = 'done', id = fmt(id), u = user, status = st }
end

-- written with the order's first flush (fFlush), in one HSET
o.static = { 'id', fmt(id), 'kind', 'futures', 'role', 'open', 'user', user, 'acct', acctId, 'pair', pair,
  'side', side, 'isMarket', isMarket and '1' or '0', 'price', price and fmt(price) or '', 'amount', fmt(amount),
  'lev', fmt(lev), 'stp', fmt(stp), 'postOnly', postOnly and '1' or '0', 'clid', clid, 'cts', ts }
fCommit(ctx)
local idText = fmt(id)
rcall('ZADD', userOrdersKey, idText, idText)
rcall('ZADD', acctOrdersKey, idText, idText)
if clid ~= '' then rcall('HSET', clidKey, clid, id) end
return { 'OK', { 'id', fmt(id), 'clid', clid, 'status', o.status } }
