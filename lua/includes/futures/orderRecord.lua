--[[
  The futures order record, a hash of two fields (as spot's, includes/spot/spotOrder), so a command
  writes one small listpack per order instead of a 45-field hash and reads one back with two values:
    futures  what never changes: id|role|user|acct|pair|side|isMarket|price|amount|lev|stp|postOnly|cts|pos|clid
             (clientOrderId last: the one free-text field, it may itself hold '|'; a close order
             leaves isMarket..cts and clid empty, an opening order leaves pos empty)
    state    what commands change: an opening order's
               filled|rsv|cost|ecost|openQty|margin|imargin|fee|rpnl|funding|status|tp|sl|liq|closeOrd|closeReason|resting|uts
             a close order's filled|resting|uts
             then, on both, |v: the order's version, 1 when placed and one more on every write (the
             private stream's `st` events, includes/packedEvent); a record written before the field
             existed has none (read as 0)
  Empty optional values stay empty between the bars. src/futures/futures-order-record.ts decodes
  the same layout into the flat record every reader uses; the key is orderKey(P, id).
]]
--- @include "includes/fmt"
--- @include "includes/rcall"
--- @include "includes/globals"
--- @include "includes/packedEvent"

-- literals: a library's top level cannot reach `string` (Redis Functions load it without globals)
local F_FIXED = '^([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|(.*)$'
local F_OPEN_STATE = '^([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|?([^|]*)$'
local F_CLOSE_STATE = '^([^|]*)|([^|]*)|([^|]*)|?([^|]*)$'
-- The patterns includes/futures/context fLoad reads a maker with (one table: the library's top level
-- holds at most 200 locals). fixed: F_FIXED's fields with postOnly and cts matched, not captured,
-- and the clientOrderId left unread (a capture each costs a string); untraded: an opening order that
-- has not traded (a resting maker's commonest state) has its nine zeros as fStateText writes them,
-- matched as literals, ten captures fewer.
local F_LOAD = {
  fixed = '^([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|[^|]*|[^|]*|([^|]*)|',
  untraded = '^0|([^|]*)|0|0|0|0|0|0|0|0|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|[^|]*|?([^|]*)$',
}

local function optTicks(v)
  if v == nil then return '' end
  return fmt(v)
end

local STP_TEXT = { [0] = '0', '1', '2', '3' }

-- The `futures` field of a new order (`o` as includes/futures/createOrder and close build it);
-- `levText` its leverage as the account hash holds it (an integer, canonical: createFuturesAccount),
-- `priceText` an opening order's price as the caller has it printed (createOrder: ARGV's, canonical).
local function fFixedText(o, postOnly, cts, clid, levText, priceText)
  if o.role == 'close' then
    return fmt(o.id) .. '|close|' .. o.user .. '|' .. o.acct .. '|' .. o.pair .. '|' .. o.side .. '||'
      .. optTicks(o.price) .. '|' .. fmt(o.amount) .. '|||||' .. o.pos .. '|'
  end
  -- a new opening order carries its id and amount as text (includes/futures/createOrder)
  return (o.idText or fmt(o.id)) .. '|open|' .. o.user .. '|' .. o.acct .. '|' .. o.pair .. '|' .. o.side .. '|'
    .. (o.isMarket and '1' or '0') .. '|' .. (priceText or optTicks(o.price)) .. '|' .. (o.amountText or fmt(o.amount))
    .. '|' .. (levText or fmt(o.lev)) .. '|' .. (STP_TEXT[o.stp] or fmt(o.stp)) .. '|' .. postOnly .. '|' .. cts .. '||' .. clid
end

-- The last cost and margin fStateText printed, and their texts: a fill's two new positions have the
-- same cost (ticks x lots), and the same margin at the same leverage, and are written one after the
-- other. Reused on an exact match of the number only (fmt's text is a function of it), so what an
-- earlier call left here is as good as a text printed now. One table, not four locals: the library's
-- main function is near Lua's limit of 200 locals.
local LAST_PRINTED = { cost = { n = false, text = false }, margin = { n = false, text = false } }

-- n's text (fmt), the one `last` (a slot of LAST_PRINTED) holds when it is the same number.
local function fmtAgain(last, n)
  if n == last.n then return last.text end
  local text = fmt(n)
  last.n, last.text = n, text
  return text
end

-- The `state` field of an order as it now stands; `ts` the command's time. A number printed costs
-- more than the rest of the text together: what is already text is reused (the amount of a filled
-- order, the liquidation price fIndex printed, a first fill's fee, the cost and margin just printed
-- for the other side of a fill), zeros are literals. A new order has no closeOrd field (''). The
-- liquidation price is text only (liqText): fIndex's, or a loaded position's as its record holds it.
local function fStateText(o, ts)
  local v = ORDER_EVENTS.version(o.v)
  if o.role == 'close' then return fmt(o.filled) .. '|' .. (o.resting or '0') .. '|' .. ts .. '|' .. v end
  -- fields read twice, read once
  local status, tp, sl, liq = o.status, o.tp, o.sl, ''
  if status == '50' then liq = o.liqText or '' end
  if tp then tp = fmt(tp) else tp = '' end
  if sl then sl = fmt(sl) else sl = '' end
  -- the numbers, read once: their texts take the names below
  local filledN, costN, marginN = o.filled, o.cost, o.margin
  if filledN == 0 and costN == 0 and marginN == 0 and o.openQty == 0 and o.ecost == 0 and o.imargin == 0 and o.fee == 0
    and o.rpnl == 0 and o.funding == 0 then
    -- an order that has not traded (a resting order's first write)
    return '0|' .. fmt(o.rsv) .. '|0|0|0|0|0|0|0|0|' .. status .. '|' .. tp .. '|' .. sl .. '|' .. liq .. '|'
      .. (o.closeOrd or '') .. '|' .. (o.closeReason or '') .. '|' .. (o.resting or '0') .. '|' .. ts .. '|' .. v
  end
  -- a filled order's amount as the record already holds it: a new order's from ARGV, a loaded one's as read
  local filled
  if filledN == o.amount then filled = o.amountText or fmt(filledN) else filled = fmt(filledN) end
  local last = LAST_PRINTED
  local cost, margin = fmtAgain(last.cost, costN), fmtAgain(last.margin, marginN)
  -- pairs that are equal until a position is closed or funded, printed once
  local openQty, ecost, imargin = filled, cost, margin
  if o.openQty ~= filledN then openQty = fmt(o.openQty) end
  if o.ecost ~= costN then ecost = fmt(o.ecost) end
  if o.imargin ~= marginN then imargin = fmt(o.imargin) end
  -- a fee the trade event printed (includes/futures/settlement fFill)
  local fee = o.fee
  if fee == o.feeOf then fee = o.feeText else fee = fmt(fee) end
  -- mostly zero (rsv once the order no longer rests, rpnl before a close, funding before a
  -- settlement): the literal, without fmt's call
  local rsv, rpnl, funding = o.rsv, o.rpnl, o.funding
  if rsv == 0 then rsv = '0' else rsv = fmt(rsv) end
  if rpnl == 0 then rpnl = '0' else rpnl = fmt(rpnl) end
  if funding == 0 then funding = '0' else funding = fmt(funding) end
  return filled .. '|' .. rsv .. '|' .. cost .. '|' .. ecost .. '|' .. openQty .. '|'
    .. margin .. '|' .. imargin .. '|' .. fee .. '|' .. rpnl .. '|' .. funding .. '|'
    .. status .. '|' .. tp .. '|' .. sl .. '|' .. liq .. '|' .. (o.closeOrd or '') .. '|'
    .. (o.closeReason or '') .. '|' .. (o.resting or '0') .. '|' .. ts .. '|' .. v
end

-- The record's two texts, `futures` and `state`, as fields by name (empty optional values '').
-- Built by one constructor each: a table filled field by field rehashes as it grows.
local function fRecordOf(fixed, state)
  local id, role, user, acct, pair, side, isMarket, price, amount, lev, stp, postOnly, cts, pos, clid =
    string.match(fixed, F_FIXED)
  if role == 'close' then
    local filled, resting, uts = string.match(state, F_CLOSE_STATE)
    return { id = id, role = role, user = user, acct = acct, pair = pair, side = side, isMarket = isMarket,
      price = price, amount = amount, lev = lev, stp = stp, postOnly = postOnly, cts = cts, pos = pos, clid = clid,
      filled = filled, resting = resting, uts = uts }
  end
  local filled, rsv, cost, ecost, openQty, margin, imargin, fee, rpnl, funding, status, tp, sl, liq, closeOrd,
    closeReason, resting, uts = string.match(state, F_OPEN_STATE)
  return { id = id, role = role, user = user, acct = acct, pair = pair, side = side, isMarket = isMarket,
    price = price, amount = amount, lev = lev, stp = stp, postOnly = postOnly, cts = cts, pos = pos, clid = clid,
    filled = filled, rsv = rsv, cost = cost, ecost = ecost, openQty = openQty, margin = margin, imargin = imargin,
    fee = fee, rpnl = rpnl, funding = funding, status = status, tp = tp, sl = sl, liq = liq, closeOrd = closeOrd,
    closeReason = closeReason, resting = resting, uts = uts }
end

-- The record's two texts, nil when `key` holds no futures order.
local function fRecordTexts(key)
  local call = RCALL or rcallOf()
  local h = call('HMGET', key, 'futures', 'state')
  if not h[1] or not h[2] then return nil end
  return h[1], h[2]
end

-- The record at `key` as fRecordOf gives it, and its two texts (for includes/futures/context
-- fLoad); nil when it holds no futures order.
local function fReadRecord(key)
  local fixed, state = fRecordTexts(key)
  if not fixed then return nil end
  return fRecordOf(fixed, state), fixed, state
end
