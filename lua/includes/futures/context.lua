--[[
  The context of one futures command (isolated margin, one position per order, linear contracts;
  see docs/futures.md): the market's keys and parameters, and the orders the command loads.

  Every order hash of kind `futures` is either an opening order (`role` open: the order that becomes
  a position once filled) or a close order (`role` close: reduce-only, `pos` = the position it
  closes). Objects loaded in a command are cached in ctx.objs (one table per order, shared by every
  reference), marked with fDirty when they change, and written once at the end of the command
  (includes/futures/flush).

  Account hash fields: `balance` (free), `locked` (margins and reservations).
]]
--- @include "includes/futures/commandKeys"
--- @include "includes/futures/margin"
--- @include "includes/futures/orderRecord"
--- @include "includes/publishEvents"
--- @include "includes/globals"
--- @include "includes/rcall"
--- @include "includes/fmt"

local FST = { CREATED = '10', CLOSED = '20', CANCELLED = '30', ERROR = '40', IN_POSITION = '50' }

-- x rounded half up, without math.floor (a global's lookup and a C call): y - y % 1 is floor(y),
-- exactly (Lua's y % 1 is y - floor(y)).
local function roundHalfUp(x)
  local y = x + 0.5
  return y - y % 1
end

-- Decimal texts read by arithmetic: Lua converts a string operand once, tonumber converts twice.
local function ppmOf(v)
  return roundHalfUp(v * 1000000)
end

-- The market's keys (includes/futures/commandKeys) and parameters (from the pair hash), which no
-- command changes: read once per call and shared by its orders; nil when there is no such pair.
-- The parameters as the orders use them are one text in the pair hash's `futParams` field,
-- "ns maker taker mmr maxLeverage quoteCurrencyCode" (fees and mmr in ppm): one field read and one
-- match, where HMGET of the nine fields they come from scans the hash's listpack nine times. The
-- market's first command writes it from those fields, first in the hash (a pair is created without
-- it; the service leaves it out of the pair it reads: src/markets/market-store.ts).
-- The parameters as read (`fut`) are kept across calls by their text, in a block's local (not one
-- of the library's top-level locals): a market's never change once it is created
-- (lua/markets/createPair), they are made from the text alone, so one text is one table, and no
-- command writes to it. One entry a market.
-- The market as the call's orders share it ({ keys, fkeys, fut }) is kept too, by its pair hash's
-- key: the other 21 names are a function of it (src/futures/futures-script-keys.ts builds them from
-- the engine prefix and the pair), two of them are checked anyway, and nothing writes to the tables.
-- Kept, the names stay interned strings: FCALL's conversion of KEYS then finds each one made
-- (no allocation, no collection), and no command builds the six tables of the keys again.
local futuresMarketFor
do
  local parsed, known = {}, {}
  futuresMarketFor = function(KEYS)
    local call = RCALL or rcallOf()
    local text = call('HGET', KEYS[1], 'futParams')
    if not text then
      local f = call('HMGET', KEYS[1], 'digitsPrice', 'digitsAmount', 'quoteDecimals',
        'contractValue', 'makerFee', 'takerFee', 'maintenanceMarginRate', 'maxLeverage', 'quoteCurrencyCode')
      if not f[1] then return nil end
      local exp = f[3] - f[1] - f[2]
      text = fmt(roundHalfUp(f[4] * 10 ^ exp)) .. ' ' .. fmt(ppmOf(f[5])) .. ' ' .. fmt(ppmOf(f[6])) .. ' ' ..
        fmt(ppmOf(f[7])) .. ' ' .. f[8] .. ' ' .. f[9]
      -- as the hash's first field: every call reads it, and HGET scans a small hash (a listpack)
      -- from its start, past the pair's ~20 fields for a field added last. Rewritten once, atomically
      local all = call('HGETALL', KEYS[1])
      call('DEL', KEYS[1])
      call('HSET', KEYS[1], 'futParams', text, (TUNPACK or tunpackOf())(all))
    end
    local fut = parsed[text]
    if not fut then
      local ns, maker, taker, mmr, maxLev, cur = (TMATCH or matchOf())(text, '^(%S+) (%S+) (%S+) (%S+) (%S+) (.*)$')
      mmr = mmr + 0
      local liqNum, liqDenL, liqDenS = fLiqFactor(mmr)
      fut = { ns = ns + 0, maker = maker + 0, taker = taker + 0, mmr = mmr, maxLev = maxLev + 0, cur = cur,
        liqNum = liqNum, liqDenL = liqDenL, liqDenS = liqDenS }
      parsed[text] = fut
    end
    local market = known[KEYS[1]]
    if market and market.fut == fut and market.keys.book.bids == KEYS[2] and market.fkeys.liqS == KEYS[21] then
      return market
    end
    local keys, fkeys = futuresMarketKeys(KEYS)
    market = { keys = keys, fkeys = fkeys, fut = fut }
    known[KEYS[1]] = market
    return market
  end
end

-- A context for one futures command on a market: KEYS[1..22] as futuresMarketFor reads them (or
-- `market`, what it answered earlier in the same call); nil when there is no such pair.
-- `batch`: what the orders of one call share (includes/futures/createOrder), else nil: the event
-- entry they add to (events, changed), the key names built so far (accounts, orderKeys; a name
-- is a function of its id alone, so sharing them changes no order's outcome) and the call's ids
-- (ctx.ids = batch: includes/idCounter hands them out).
-- The fields of newContext (includes/publishEvents) and a futures command's, in one constructor:
-- a table filled field by field rehashes as it grows.
local function futuresContextFor(KEYS, P, pair, ts, maxlen, market, batch)
  market = market or futuresMarketFor(KEYS)
  if not market then return nil end
  local events, changed, accounts, orderKeys
  if batch then events, changed, accounts, orderKeys = batch.events, batch.changed, batch.accounts, batch.orderKeys end
  return {
    P = P, keys = market.keys, ts = ts, maxlen = maxlen, changed = changed or { bids = {}, asks = {} },
    bookChanged = false, events = events or {}, deltas = {}, deltaOrder = {},
    pair = pair, fkeys = market.fkeys, fut = market.fut, objs = {}, dirtyOrder = {},
    accounts = accounts or {}, orderKeys = orderKeys or {}, known = {}, tracked = {}, ids = batch,
  }
end

-- The table `b` of one createFuturesOrders call, what its orders share (lua/futures/createFuturesOrders):
-- P (engine prefix), pair, maxlen, n (orders in the call); the event entry being built (events,
-- changed levels, lastTicks, ts); the key names built so far (accounts, orderKeys); the context of
-- its orders (ctx, includes/futures/createOrder: with allocated, market, fees, acctValues);
-- includes/futures/triggerIndex's liqL, liqS, liqGone; includes/idCounter's oidNext, oidTop,
-- tidNext, tidTop, tidFirst. Every field is named in the constructor, nil until set (a table filled field by
-- field rehashes as it grows); the event list starts with the slots of a usual batch (4 orders: 16
-- events), not grown one doubling at a time (a nil slot is absent to # and to cjson).
-- Kept across calls with its tables and its orders' context, and emptied here at each call's start:
-- a call made some fifteen tables (its own and its context's), each made, grown, swept and freed.
-- `inUse` is true while a call runs: one that died past its orders' pcall (a runtime error in its
-- last writes) leaves it so, and the next call starts from new tables; `fresh` tells
-- futuresBatchContext that the context is an earlier call's.
local futuresBatch
do
  local kept
  futuresBatch = function(ARGV, n)
    local b = kept
    if not b or b.inUse then
      b = { P = ARGV[1], pair = ARGV[2], maxlen = ARGV[3], changed = { bids = {}, asks = {} },
        events = { nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil },
        accounts = {}, orderKeys = {}, n = n, ctx = nil, allocated = nil, market = nil, ts = nil, lastTicks = nil,
        fees = nil, acctValues = nil, oidNext = nil, oidTop = nil, tidNext = nil, tidTop = nil, tidFirst = nil,
        liqL = nil, liqS = nil, liqGone = nil, inUse = true, fresh = false }
      kept = b
      return b
    end
    -- every field of the constructor above, but the tables kept (ctx, acctValues and the four emptied
    -- below): a field added there is put back here
    b.P, b.pair, b.maxlen, b.n, b.inUse, b.fresh = ARGV[1], ARGV[2], ARGV[3], n, true, true
    b.allocated, b.market, b.ts, b.lastTicks, b.fees = nil, nil, nil, nil, nil
    b.oidNext, b.oidTop, b.tidNext, b.tidTop, b.tidFirst, b.liqL, b.liqS, b.liqGone = nil, nil, nil, nil, nil, nil, nil, nil
    local events, changed = b.events, b.changed
    for i = #events, 1, -1 do events[i] = nil end
    emptyTable(changed.bids)
    emptyTable(changed.asks)
    emptyTable(b.accounts)
    emptyTable(b.orderKeys)
    return b
  end
end

-- The context of the next order of a batch (includes/futures/createOrder; `b` as it holds it, its
-- market read): the batch's one context with this order's time and its per-order tables emptied,
-- so each order starts from a fresh context as if it came alone. The tables are the previous
-- order's, emptied in place, not new ones: five new tables an order, each grown from empty, cost
-- more than the emptying. Every field an order may set lazily on its context is put back here.
-- The accounts' tracked flags (includes/futures/accountStats) stay within a call (no command of
-- a batch changes one), not from one call to the next.
local function futuresBatchContext(KEYS, b, ts)
  local ctx = b.ctx
  if not ctx then
    ctx = futuresContextFor(KEYS, b.P, b.pair, ts, b.maxlen, b.market, b)
    b.ctx = ctx
    b.fresh = false
    return ctx
  end
  if b.fresh then
    -- an earlier call's context: this call's market, and no flag it learnt
    local m = b.market
    ctx.P, ctx.pair, ctx.maxlen, ctx.keys, ctx.fkeys, ctx.fut = b.P, b.pair, b.maxlen, m.keys, m.fkeys, m.fut
    emptyTable(ctx.tracked)
    b.fresh = false
  end
  ctx.ts, ctx.bookChanged, ctx.lastTicks, ctx.stats, ctx.statsOrder = ts, false, nil, nil, nil
  -- deltaOrder lists every key of deltas (includes/deltas), dirtyOrder every object it is keyed by
  -- (fDirty), and objs caches each of those objects: numeric loops empty them; emptyTable (a C call
  -- per key) takes what is left in objs (an object read and not changed) and in known
  local deltas, order = ctx.deltas, ctx.deltaOrder
  for i = #order, 1, -1 do
    deltas[order[i]] = nil
    order[i] = nil
  end
  local dirty, objs = ctx.dirtyOrder, ctx.objs
  for i = #dirty, 1, -1 do
    local o = dirty[i]
    objs[o.id], dirty[o], dirty[i] = nil, nil, nil
  end
  emptyTable(objs)
  emptyTable(ctx.known)
  return ctx
end

-- ctx.dirtyOrder lists the objects to write in order, and is keyed by them too (one table, not two).
local function fDirty(ctx, o)
  local d = ctx.dirtyOrder
  if not d[o] then
    d[o] = true
    d[#d + 1] = o
  end
end

-- An order record as a table (cached per command); a close order carries its position as posObj.
-- `fixed`, `state`: the record's texts (includes/futures/orderRecord), when the caller has read them.
-- Built from the record's captures in one constructor; the texts stay on it as loaded (origFixed,
-- origState), decoded only for an account that keeps aggregates (includes/futures/accountStats).
-- The record's numbers are fmt's integers, an optional one empty (absent, as a close order's
-- opening fields): read by arithmetic (`s + 0` converts once, tonumber twice and is a global's
-- lookup), inline (a helper's call per field cost more than the field), '0' without a conversion.
local function fLoad(ctx, id, fixed, state)
  id = id + 0
  local hit = ctx.objs[id]
  if hit then return hit end
  if not fixed then
    fixed, state = fRecordTexts(fOrderKey(ctx, id))
    if not fixed then return nil end
  end
  local match = TMATCH or matchOf()
  local idText, role, user, acct, pair, side, isMarket, price, amount, lev, stp, pos = match(fixed, F_LOAD.fixed)
  local filled, rsv, cost, ecost, openQty, margin, imargin, fee, rpnl, funding = 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
  local status, tp, sl, liq, closeOrd, closeReason, resting, uts, v
  if role == 'close' then
    -- a close order's state lacks the rest: zeros and absent values, as an opening order's empty ones
    filled, resting, uts, v = match(state, F_CLOSE_STATE)
    if filled ~= '0' then filled = filled + 0 else filled = 0 end
    closeOrd, closeReason = '', ''
  else
    rsv, status, tp, sl, liq, closeOrd, closeReason, resting, v = match(state, F_LOAD.untraded)
    if rsv then
      -- not traded: the nine zeros are the numbers above
      if rsv ~= '0' then rsv = rsv + 0 else rsv = 0 end
    else
      filled, rsv, cost, ecost, openQty, margin, imargin, fee, rpnl, funding, status, tp, sl, liq, closeOrd, closeReason, resting,
        uts, v = match(state, F_OPEN_STATE)
      filled, rsv = filled == '0' and 0 or filled + 0, rsv == '0' and 0 or rsv + 0
      cost, ecost = cost == '0' and 0 or cost + 0, ecost == '0' and 0 or ecost + 0
      openQty, margin = openQty == '0' and 0 or openQty + 0, margin == '0' and 0 or margin + 0
      imargin, fee = imargin == '0' and 0 or imargin + 0, fee == '0' and 0 or fee + 0
      rpnl, funding = rpnl == '0' and 0 or rpnl + 0, funding == '0' and 0 or funding + 0
    end
    if tp == '' then tp = nil else tp = tp + 0 end
    if sl == '' then sl = nil else sl = sl + 0 end
    if liq == '' then liq = nil end
  end
  if pos == '' then pos = nil end
  local amountN = amount + 0
  -- 30 fields named, so an opening maker's table keeps 32 slots with the two a fill adds (feeOf,
  -- feeText: includes/futures/settlement); at 33 it took 64 (a bigger table to make, sweep and free).
  -- The liquidation price stays the record's text (liqText), which fIndex replaces when it re-indexes
  -- the position and fStateText writes back: nothing reads it as a number
  local o = {
    id = id, idText = idText, user = user, acct = acct, side = side, role = role, pair = pair,
    price = price ~= '' and price + 0 or nil, amount = amountN, amountText = amount, filled = filled,
    remaining = amountN - filled, rsv = rsv, lev = lev ~= '' and lev + 0 or 1,
    cost = cost, ecost = ecost, openQty = openQty, margin = margin, imargin = imargin, fee = fee,
    rpnl = rpnl, funding = funding, status = status, liqText = liq, closeOrd = closeOrd,
    wasOpen = status == '10' or status == '50', resting = resting or '0', origFixed = fixed, origState = state,
    v = v ~= '' and v + 0 or 0,
  }
  -- rare fields only when there (a nil field in a constructor takes a slot too); liqText is named
  -- above as fIndex sets it for every position (includes/futures/triggerIndex). Absent reads as their
  -- default to every reader: stp 0 (matchOrder), isMarket and wasActive false (tests of truth),
  -- closeReason '' (includes/futures/orderRecord prints `closeReason or ''`).
  if status == '50' then o.wasActive = true end
  if isMarket == '1' then o.isMarket = true end
  if stp ~= '0' and stp ~= '' then o.stp = stp + 0 end
  if closeReason ~= '' then o.closeReason = closeReason end
  if tp then o.tp = tp end
  if sl then o.sl = sl end
  if pos then o.pos = pos end
  ctx.objs[id] = o
  if role == 'close' then o.posObj = fLoad(ctx, pos) end
  return o
end

-- A field of an account hash as it stands with this command's pending deltas (what the command
-- read of it, includes/deltas knowValues, when it did).
local function fAcctField(ctx, acct, field)
  local key = fAccountKeys(ctx, acct).hash
  local known = ctx.known and ctx.known[key]
  local v = known and known[field]
  if v == nil then v = tonumber(redis.call('HGET', key, field) or '0') end
  local pending = ctx.deltas[key]
  if pending and pending[field] then v = v + pending[field] end
  return v
end
