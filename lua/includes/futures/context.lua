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
--- @include "includes/futures/orderRecord"
--- @include "includes/publishEvents"

local FST = { CREATED = '10', CLOSED = '20', CANCELLED = '30', ERROR = '40', IN_POSITION = '50' }

-- Decimal texts read by arithmetic: Lua converts a string operand once, tonumber converts twice.
local function ppmOf(v)
  return math.floor(v * 1000000 + 0.5)
end

-- The market's keys (includes/futures/commandKeys) and parameters (from the pair hash), which no
-- command changes: read once per call and shared by its orders; nil when there is no such pair.
local function futuresMarketFor(KEYS)
  local f = redis.call('HMGET', KEYS[1], 'digitsPrice', 'digitsAmount', 'quoteDecimals',
    'contractValue', 'makerFee', 'takerFee', 'maintenanceMarginRate', 'maxLeverage', 'quoteCurrencyCode')
  if not f[1] then return nil end
  local keys, fkeys = futuresMarketKeys(KEYS)
  local exp = f[3] - f[1] - f[2]
  local fut = {
    ns = math.floor(f[4] * 10 ^ exp + 0.5),
    maker = ppmOf(f[5]), taker = ppmOf(f[6]), mmr = ppmOf(f[7]), maxLev = f[8] + 0, cur = f[9],
  }
  return { keys = keys, fkeys = fkeys, fut = fut }
end

-- A context for one futures command on a market: KEYS[1..22] as futuresMarketFor reads them (or
-- `market`, what it answered earlier in the same call); nil when there is no such pair.
-- `events`, `changed`: the event entry it adds to, when a batch shares one.
local function futuresContextFor(KEYS, P, pair, ts, maxlen, market, events, changed)
  market = market or futuresMarketFor(KEYS)
  if not market then return nil end
  local ctx = newContext(P, market.keys, ts, maxlen, events, changed)
  ctx.pair = pair
  ctx.fkeys = market.fkeys
  ctx.fut = market.fut
  ctx.objs = {}
  ctx.dirty = {}
  ctx.dirtyOrder = {}
  ctx.accounts = {}
  ctx.orderKeys = {}
  return ctx
end

local function fDirty(ctx, o)
  if not ctx.dirty[o.id] then
    ctx.dirty[o.id] = true
    ctx.dirtyOrder[#ctx.dirtyOrder + 1] = o
  end
end

-- A record's number; most fields of a young order are '0', which skips tonumber.
local function numOr(v, d)
  if v == '0' then return 0 end
  if v == nil or v == '' then return d end
  return tonumber(v)
end

-- An order record as a table (cached per command); a close order carries its position as posObj.
-- `t`: the record as fReadRecord gave it, when the caller has already read it.
local function fLoad(ctx, id, t)
  id = tonumber(id)
  local hit = ctx.objs[id]
  if hit then return hit end
  t = t or fReadRecord(fOrderKey(ctx, id))
  if not t then return nil end
  if t.pos == '' then t.pos = nil end
  local o = {
    id = id, idText = t.id, user = t.user, acct = t.acct, side = t.side, role = t.role, pair = t.pair, kind = 'futures',
    price = numOr(t.price, nil), amount = numOr(t.amount, 0), filled = numOr(t.filled, 0),
    rsv = numOr(t.rsv, 0), lev = numOr(t.lev, 1), cost = numOr(t.cost, 0), ecost = numOr(t.ecost, 0), openQty = numOr(t.openQty, 0),
    margin = numOr(t.margin, 0), imargin = numOr(t.imargin, 0), fee = numOr(t.fee, 0), rpnl = numOr(t.rpnl, 0),
    funding = numOr(t.funding, 0), stp = numOr(t.stp, 0), status = t.status, tp = numOr(t.tp, nil),
    sl = numOr(t.sl, nil), liq = numOr(t.liq, nil), closeOrd = t.closeOrd or '', pos = t.pos,
    isMarket = t.isMarket == '1', closeReason = t.closeReason or '', isMaker = true,
    wasActive = t.status == '50', wasOpen = t.status == '10' or t.status == '50', resting = t.resting or '0',
    orig = t, -- the hash as loaded: includes/futures/accountStats takes its part out
  }
  o.remaining = o.amount - o.filled
  ctx.objs[id] = o
  if o.role == 'close' then o.posObj = fLoad(ctx, o.pos) end
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
