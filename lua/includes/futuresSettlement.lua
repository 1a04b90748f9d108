--[[
  Settlement of futures fills (isolated margin, one position per order, linear contracts; see
  docs/futures.md). Every order hash of kind `futures` is either an opening order (`role` open:
  the order that becomes a position once filled) or a close order (`role` close: reduce-only,
  `pos` = the position it closes). All money is in minor units of the pair's quote currency.

  Notional of `q` lots at `t` ticks: t * q * ns, where ns = contractValue x quote minor units per
  tick x lot. Margin = floor(notional / leverage) (locked collateral, so rounding down is safe and
  splits of a fill never need more than the whole); fees round up (the exchange collects them).
  A resting opening order reserves fReserve(price, lots): margin + taker fee + one minor unit per
  lot, which covers the rounding of any split into fills, so a maker never needs more than it holds.

  Account hash fields: `balance` (free), `locked` (margins and reservations). Money that leaves a
  position goes to `fees`, the insurance fund or the pnl pool (the counterparty side of realized
  pnl); the sum of all of them and of every wallet never changes.

  Objects loaded in a command are cached in ctx.objs (one table per order, shared by every
  reference) and written once by fFlush at the end of the command, with the trigger indices.
]]
--- @include "includes/keys"
--- @include "includes/mulDiv"
--- @include "includes/deltas"
--- @include "includes/book"
--- @include "includes/fmt"
--- @include "includes/safeInt"
--- @include "includes/publishEvents"
--- @include "includes/matchOrder"

local FST = { CREATED = '10', CLOSED = '20', CANCELLED = '30', ERROR = '40', IN_POSITION = '50' }

local function ppmOf(v)
  return math.floor(tonumber(v) * 1000000 + 0.5)
end

-- A context for one futures market, its parameters read from the pair hash.
local function futuresContextFor(P, pair, ts, maxlen)
  local f = redis.call('HMGET', P .. 'pair:futures:' .. pair, 'digitsPrice', 'digitsAmount', 'quoteDecimals',
    'contractValue', 'makerFee', 'takerFee', 'maintenanceMarginRate', 'maxLeverage', 'quoteCurrencyCode')
  if not f[1] then return nil end
  local keys = bookKeys(P, 'futures', pair)
  keys.tradeIds = P .. 'ids:trade'
  keys.orderIds = P .. 'ids:order'
  keys.fees = P .. 'fees'
  keys.insurance = P .. 'finsurance'
  keys.pool = P .. 'fpool'
  local ctx = newContext(P, keys, ts, maxlen)
  ctx.pair = pair
  ctx.fkeys = futuresKeys(P, pair)
  local exp = tonumber(f[3]) - tonumber(f[1]) - tonumber(f[2])
  ctx.fut = {
    ns = math.floor(tonumber(f[4]) * 10 ^ exp + 0.5),
    maker = ppmOf(f[5]), taker = ppmOf(f[6]), mmr = ppmOf(f[7]), maxLev = tonumber(f[8]), cur = f[9],
  }
  ctx.objs = {}
  ctx.dirty = {}
  ctx.dirtyOrder = {}
  return ctx
end

local function fDirty(ctx, o)
  if not ctx.dirty[o.id] then
    ctx.dirty[o.id] = true
    ctx.dirtyOrder[#ctx.dirtyOrder + 1] = o
  end
end

local function numOr(v, d)
  if v == nil or v == '' then return d end
  return tonumber(v)
end

-- An order hash as a table (cached per command); a close order carries its position as posObj.
local function fLoad(ctx, id)
  id = tonumber(id)
  local hit = ctx.objs[id]
  if hit then return hit end
  local h = redis.call('HGETALL', orderKey(ctx.P, id))
  if #h == 0 then return nil end
  local t = {}
  for i = 1, #h, 2 do t[h[i]] = h[i + 1] end
  local o = {
    id = id, user = t.user, acct = t.acct, side = t.side, role = t.role, pair = t.pair, kind = t.kind,
    price = numOr(t.price, nil), amount = numOr(t.amount, 0), filled = numOr(t.filled, 0),
    rsv = numOr(t.rsv, 0), lev = numOr(t.lev, 1), cost = numOr(t.cost, 0), ecost = numOr(t.ecost, 0), openQty = numOr(t.openQty, 0),
    margin = numOr(t.margin, 0), imargin = numOr(t.imargin, 0), fee = numOr(t.fee, 0), rpnl = numOr(t.rpnl, 0),
    funding = numOr(t.funding, 0), stp = numOr(t.stp, 0), status = t.status, tp = numOr(t.tp, nil),
    sl = numOr(t.sl, nil), liq = numOr(t.liq, nil), closeOrd = t.closeOrd or '', pos = t.pos,
    isMarket = t.isMarket == '1', closeReason = t.closeReason or '', isMaker = true,
    wasActive = t.status == '50', resting = t.resting or '0',
  }
  o.remaining = o.amount - o.filled
  ctx.objs[id] = o
  if o.role == 'close' then o.posObj = fLoad(ctx, o.pos) end
  return o
end

local function fAcctField(ctx, acct, field)
  local key = futuresAccountKey(ctx.P, acct)
  local v = tonumber(redis.call('HGET', key, field) or '0')
  local pending = ctx.deltas[key]
  if pending and pending[field] then v = v + pending[field] end
  return v
end

local function fNotional(ctx, ticks, lots)
  return ticks * lots * ctx.fut.ns
end

-- What a resting opening order holds for `lots` at `ticks`: margin, taker fee, one unit per lot.
local function fReserve(ctx, ticks, lots, lev)
  if lots <= 0 then return 0 end
  local n = fNotional(ctx, ticks, lots)
  return math.floor(n / lev) + mulDivCeil(n, ctx.fut.taker, 1000000) + lots
end

-- Liquidation price in ticks (DESIGN 4): long entry x (1 - 1/lev + mmr), short entry x (1 + 1/lev - mmr),
-- entry = the average entry of the open quantity; rounded towards the entry (triggers a little early).
local function fLiqPrice(ctx, o)
  local f = 1000000 / o.lev
  if o.side == 'buy' then
    return math.max(0, math.ceil(o.cost * (1000000 - f + ctx.fut.mmr) / (o.openQty * 1000000)))
  end
  return math.floor(o.cost * (1000000 + f - ctx.fut.mmr) / (o.openQty * 1000000))
end

-- Average entry in ticks (a double: used for comparisons only).
local function fEntry(o)
  if o.openQty > 0 then return o.cost / o.openQty end
  return o.price
end

local function addTo(ctx, key, field, v)
  addDelta(ctx, key, field, v)
end

-- One side of a fill. Returns fee, realized pnl, position id.
local function fPartyFill(ctx, o, ticks, q, isTaker)
  local f = ctx.fut
  local rate = f.maker
  if isTaker then rate = f.taker end
  local n = fNotional(ctx, ticks, q)
  local fee = mulDivCeil(n, rate, 1000000)
  local akey = futuresAccountKey(ctx.P, o.acct)
  if o.role == 'close' then
    local pos = o.posObj
    local portion, mrel = pos.cost, pos.margin
    if q < pos.openQty then
      portion = mulDivFloor(pos.cost, q, pos.openQty)
      mrel = mulDivFloor(pos.margin, q, pos.openQty)
    end
    local pnl = (ticks * q - portion) * f.ns
    if pos.side == 'sell' then pnl = -pnl end
    local payout = mrel + pnl - fee
    addTo(ctx, akey, 'locked', -mrel)
    addTo(ctx, ctx.keys.fees, f.cur, fee)
    addTo(ctx, ctx.keys.pool, f.cur, -pnl)
    if ctx.liquidating == pos.id then
      -- liquidation: what is left of the margin goes to the insurance fund, a deficit comes from it
      addTo(ctx, ctx.keys.insurance, f.cur, payout)
    else
      local cover = 0
      if payout < 0 then cover = -payout end
      addTo(ctx, akey, 'balance', payout + cover)
      addTo(ctx, ctx.keys.insurance, f.cur, -cover)
    end
    pos.openQty = pos.openQty - q
    pos.cost = pos.cost - portion
    pos.margin = pos.margin - mrel
    pos.rpnl = pos.rpnl + pnl
    pos.fee = pos.fee + fee
    if pos.openQty == 0 then
      pos.status = FST.CLOSED
      pos.closeOrd = ''
      pos.closeReason = ctx.closeReason or 'close'
      ctx.events[#ctx.events + 1] = { e = 'done', id = fmt(pos.id), u = pos.user, status = 'closed' }
    end
    fDirty(ctx, pos)
    o.filled = o.filled + q
    fDirty(ctx, o)
    return fee, pnl, pos
  end
  local newRsv = 0
  if o.price and not o.isMarket then newRsv = fReserve(ctx, o.price, o.remaining - q, o.lev) end
  local m = math.floor(n / o.lev)
  local delta = newRsv - o.rsv
  addTo(ctx, akey, 'locked', m + delta)
  addTo(ctx, akey, 'balance', -(m + fee + delta))
  addTo(ctx, ctx.keys.fees, f.cur, fee)
  o.rsv = newRsv
  o.filled = o.filled + q
  o.cost = o.cost + ticks * q
  o.ecost = o.ecost + ticks * q
  o.openQty = o.openQty + q
  o.margin = o.margin + m
  o.imargin = o.imargin + m
  o.fee = o.fee + fee
  o.status = FST.IN_POSITION
  fDirty(ctx, o)
  return fee, 0, o
end

-- Extra money an opening order needs from the free balance to fill q lots at ticks.
local function fOpenNeed(ctx, o, ticks, q)
  local n = fNotional(ctx, ticks, q)
  local newRsv = 0
  if o.price and not o.isMarket then newRsv = fReserve(ctx, o.price, o.remaining - q, o.lev) end
  return math.floor(n / o.lev) + mulDivCeil(n, ctx.fut.taker, 1000000) + newRsv - o.rsv
end

local function fMaxQty(ctx, taker, ticks, qty)
  local perLot = ticks * ctx.fut.ns
  local safeMax = math.floor(MAX_SAFE / perLot)
  if qty > safeMax then qty = safeMax end
  if taker.role == 'close' then
    if qty > taker.posObj.openQty then qty = taker.posObj.openQty end
    return qty
  end
  local free = fAcctField(ctx, taker.acct, 'balance')
  if fOpenNeed(ctx, taker, ticks, qty) <= free then return qty end
  local lo, hi = 0, qty
  while lo < hi do
    local mid = math.floor((lo + hi + 1) / 2)
    if fOpenNeed(ctx, taker, ticks, mid) <= free then lo = mid else hi = mid - 1 end
  end
  taker.budgetSpent = true
  return lo
end

local function fFill(ctx, taker, maker, ticks, qty, tradeId)
  local tf, tpnl, tpos = fPartyFill(ctx, taker, ticks, qty, true)
  local mf, mpnl, mpos = fPartyFill(ctx, maker, ticks, qty, false)
  local tt = '2'
  if ctx.liquidating and ctx.liquidating == tpos.id then tt = '3' end
  return { tf = fmt(tf), mf = fmt(mf), tpnl = fmt(tpnl), mpnl = fmt(mpnl), tpos = fmt(tpos.id), mpos = fmt(mpos.id),
    tl = tpos.side == 'buy' and '1' or '0', ml = mpos.side == 'buy' and '1' or '0', tt = tt }
end

-- An opening order stops resting: its reservation goes back; unfilled it is cancelled.
local function fReleaseRest(ctx, o)
  if o.rsv > 0 then
    local akey = futuresAccountKey(ctx.P, o.acct)
    addTo(ctx, akey, 'locked', -o.rsv)
    addTo(ctx, akey, 'balance', o.rsv)
    o.rsv = 0
  end
  if o.filled == 0 then o.status = FST.CANCELLED end
  o.resting = '0'
  redis.call('SREM', userOpenKey(ctx.P, 'futures', ctx.pair, o.user), o.id)
  fDirty(ctx, o)
end

local function fFinishMaker(ctx, maker, status)
  if maker.role == 'close' then
    maker.resting = '0'
    if maker.posObj.closeOrd == fmt(maker.id) then
      maker.posObj.closeOrd = ''
      fDirty(ctx, maker.posObj)
    end
    fDirty(ctx, maker)
  else
    fReleaseRest(ctx, maker)
  end
  ctx.events[#ctx.events + 1] = { e = 'done', id = fmt(maker.id), u = maker.user, status = status }
end

local FUTURES_SETTLEMENT = {
  loadMaker = fLoad,
  maxQty = fMaxQty,
  fill = fFill,
  finishMaker = fFinishMaker,
}

-- Takes whatever a position still has working off the book: the unfilled rest of its opening
-- order and a resting close order.
local function fCancelWorking(ctx, pos)
  local member = bookMember(pos.id)
  local ownBook = ownSide(pos.side)
  if pos.remaining > 0 and redis.call('ZSCORE', ctx.keys.book[ownBook], member) then
    unrestOrder(ctx, ownBook, pos.id, pos.price, pos.remaining)
    fReleaseRest(ctx, pos)
    ctx.events[#ctx.events + 1] = { e = 'done', id = fmt(pos.id), u = pos.user, status = 'cancelled' }
  elseif pos.rsv > 0 then
    fReleaseRest(ctx, pos)
  end
  if pos.closeOrd ~= '' then
    local c = fLoad(ctx, pos.closeOrd)
    if c and c.remaining > 0 then
      unrestOrder(ctx, ownSide(c.side), c.id, c.price, c.remaining)
      c.resting = '0'
      fDirty(ctx, c)
      ctx.events[#ctx.events + 1] = { e = 'done', id = fmt(c.id), u = c.user, status = 'cancelled' }
    end
    pos.closeOrd = ''
    fDirty(ctx, pos)
  end
end

-- Closes (part of) a position against the book: a close order as taker, market when limit is nil.
-- A limit close that does not fill at once rests. Returns the close order.
local function fClose(ctx, pos, limit, reason)
  local id = redis.call('INCR', ctx.keys.orderIds)
  local side = 'sell'
  if pos.side == 'sell' then side = 'buy' end
  local c = { id = id, role = 'close', user = pos.user, acct = pos.acct, side = side, price = limit, limit = limit,
    amount = pos.openQty, filled = 0, remaining = pos.openQty, stp = 0, pos = fmt(pos.id), posObj = pos,
    pair = ctx.pair, kind = 'futures', isMarket = limit == nil, resting = '0', closeReason = reason }
  ctx.objs[id] = c
  ctx.closeReason = reason
  local outcome = matchOrder(ctx, c, FUTURES_SETTLEMENT)
  if limit and outcome == 'stopped' and c.remaining > 0 and pos.openQty > 0 then
    restOrder(ctx, ownSide(side), id, limit, c.remaining)
    c.resting = '1'
    pos.closeOrd = fmt(id)
    fDirty(ctx, pos)
  end
  fDirty(ctx, c)
  ctx.closeReason = nil
  return c
end

local function fIndex(ctx, o)
  local k = ctx.fkeys
  local long = o.side == 'buy'
  local idx = fmt(o.id)
  if o.status == FST.IN_POSITION and o.openQty > 0 then
    o.liq = fLiqPrice(ctx, o)
    if long then redis.call('ZADD', k.liqL, o.liq, idx) else redis.call('ZADD', k.liqS, o.liq, idx) end
    local tpKey, slKey = k.tpS, k.slS
    if long then tpKey, slKey = k.tpL, k.slL end
    -- a position that was not in force yet has no entries to remove
    if o.tp then redis.call('ZADD', tpKey, o.tp, idx) elseif o.wasActive then redis.call('ZREM', tpKey, idx) end
    if o.sl then redis.call('ZADD', slKey, o.sl, idx) elseif o.wasActive then redis.call('ZREM', slKey, idx) end
    if not o.wasActive then redis.call('SADD', k.active, idx) end
  elseif o.wasActive then
    for _, key in ipairs({ k.liqL, k.liqS, k.tpL, k.tpS, k.slL, k.slS }) do redis.call('ZREM', key, idx) end
    redis.call('SREM', k.active, idx)
  end
end

local function optTicks(v)
  if v == nil then return '' end
  return fmt(v)
end

-- Writes every object the command touched, then the trigger indices of the positions among them.
local function fFlush(ctx)
  for _, o in ipairs(ctx.dirtyOrder) do
    local key = orderKey(ctx.P, o.id)
    if o.role == 'close' then
      redis.call('HSET', key, 'id', fmt(o.id), 'kind', 'futures', 'role', 'close', 'user', o.user, 'acct', o.acct,
        'pair', ctx.pair, 'side', o.side, 'price', optTicks(o.price), 'amount', fmt(o.amount),
        'filled', fmt(o.filled), 'pos', o.pos, 'resting', o.resting or '0', 'uts', ctx.ts)
    else
      fIndex(ctx, o)
      local f = { 'filled', fmt(o.filled), 'rsv', fmt(o.rsv), 'cost', fmt(o.cost), 'ecost', fmt(o.ecost),
        'openQty', fmt(o.openQty), 'margin', fmt(o.margin), 'imargin', fmt(o.imargin), 'fee', fmt(o.fee),
        'rpnl', fmt(o.rpnl), 'funding', fmt(o.funding), 'status', o.status, 'tp', optTicks(o.tp),
        'sl', optTicks(o.sl), 'liq', optTicks(o.status == FST.IN_POSITION and o.liq or nil),
        'closeOrd', o.closeOrd, 'closeReason', o.closeReason or '', 'resting', o.resting or '0', 'uts', ctx.ts }
      -- a new order's fixed fields go out in the same HSET
      for _, v in ipairs(o.static or {}) do f[#f + 1] = v end
      redis.call('HSET', key, unpack(f))
    end
  end
end

local function fCommit(ctx)
  flushDeltas(ctx)
  fFlush(ctx)
  publishEvents(ctx)
end
