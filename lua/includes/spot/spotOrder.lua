--[[
  The spot order record, a hash of two fields, so placing an order writes one small listpack (the
  earlier 18-field hash cost a resting order more Redis time than its matching did):
    spot   what never changes: user|pair|side|type|price|amount|quoteAmount|postOnly|stp|cts|clid
           (clientOrderId last: the one free-text field, it may itself hold '|')
    state  what fills change:  filled|filledQuote|fee|rsv|status|uts|v
           v: the order's version, 1 when placed and one more on every write of the state, so the
           private stream's `st` events (includes/packedEvent) give each state in order; a record
           written before the field existed has none (read as 0)
  Empty optional values stay empty between the bars. src/engine/spot-order-record.ts reads the
  same layout; the key is orderKey(P, id) like every order's.
]]
--- @include "includes/fmt"
--- @include "includes/keys"
--- @include "includes/rcall"
--- @include "includes/globals"

local SPOT_RECORD = '^([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|(.*)$'
local SPOT_STATE = '^([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|?([^|]*)$'

-- The `spot` field from its values, all text as the order arrived ('' for an empty optional).
local function spotRecordText(user, pair, side, otype, price, amount, quoteAmount, postOnly, stp, cts, clid)
  return user .. '|' .. pair .. '|' .. side .. '|' .. otype .. '|' .. price .. '|' .. amount .. '|' .. quoteAmount
    .. '|' .. postOnly .. '|' .. stp .. '|' .. cts .. '|' .. clid
end

-- The `state` field from its values, the numbers already printed (callers often need them again);
-- `v` the version's text.
local function spotStateText(filled, filledQuote, fee, rsv, status, ts, v)
  return filled .. '|' .. filledQuote .. '|' .. fee .. '|' .. rsv .. '|' .. status .. '|' .. ts .. '|' .. v
end

-- A spot order as a table with numbers where the engine computes (read by arithmetic: tonumber
-- is a global, ~270 instructions a lookup); nil when `id` (a number or its decimal string) is no
-- spot order. `key`: the order's hash when the caller passed it in KEYS.
-- `stateText`: the state field as read (what an undone write puts back, includes/undoLog).
-- `maker`: only what matching reads of a resting order (user, side, price, amount, stp and the fill
-- state; includes/spot/spotSettlement), captured alone: the other fields' strings cost a fill more
-- than their reading saves.
local function loadSpotOrder(P, id, key, maker)
  local idText = id
  if type(id) ~= 'string' then idText = fmt(id) end
  local f = (RCALL or rcallOf())('HMGET', key or orderKey(P, idText), 'spot', 'state')
  if not f[1] then return nil end
  local match = TMATCH or matchOf()
  if maker then
    local user, side, price, amount, stp = match(f[1], '^([^|]*)|[^|]*|([^|]*)|[^|]*|([^|]*)|([^|]*)|[^|]*|[^|]*|([^|]*)|')
    local filled, filledQuote, fee, rsv, v = match(f[2], '^([^|]*)|([^|]*)|([^|]*)|([^|]*)|[^|]*|[^|]*|?([^|]*)$')
    return {
      id = idText + 0, idText = idText, user = user, side = side, price = price + 0, amount = amount + 0,
      amountText = amount, stp = stp + 0, filled = filled + 0, filledQuote = filledQuote + 0, fee = fee + 0,
      rsv = rsv + 0, v = v ~= '' and v + 0 or 0, stateText = f[2],
      -- set by includes/spot/spotSettlement spotAsMaker and spotFill: sized here
      remaining = nil, isMaker = nil, fillFee = nil, fillFeeText = nil,
    }
  end
  local user, pair, side, otype, price, amount, quoteAmount, postOnly, stp, cts, clid = match(f[1], SPOT_RECORD)
  local filled, filledQuote, fee, rsv, status, uts, v = match(f[2], SPOT_STATE)
  return {
    id = idText + 0, idText = idText, user = user, pair = pair, side = side, type = otype,
    price = price ~= '' and price + 0 or nil, amount = amount ~= '' and amount + 0 or nil, quoteAmount = quoteAmount,
    postOnly = postOnly, stp = stp ~= '' and stp + 0 or nil, cts = cts, clid = clid, filled = filled + 0,
    filledQuote = filledQuote + 0, fee = fee + 0, rsv = rsv + 0, status = status, uts = uts,
    v = v ~= '' and v + 0 or 0, stateText = f[2],
    -- set when the order meets a taker (includes/spot/spotSettlement spotAsMaker): sized here
    remaining = nil, isMaker = nil,
  }
end
