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

-- A spot order as a table with numbers where the engine computes; nil when `id` (a number or its
-- decimal string) is no spot order. `key`: the order's hash when the caller passed it in KEYS.
local function loadSpotOrder(P, id, key)
  local idText = id
  if type(id) ~= 'string' then idText = fmt(id) end
  local f = redis.call('HMGET', key or orderKey(P, idText), 'spot', 'state')
  if not f[1] then return nil end
  local user, pair, side, otype, price, amount, quoteAmount, postOnly, stp, cts, clid =
    string.match(f[1], SPOT_RECORD)
  local filled, filledQuote, fee, rsv, status, uts, v = string.match(f[2], SPOT_STATE)
  return {
    id = tonumber(id), idText = idText, user = user, pair = pair, side = side, type = otype, price = tonumber(price),
    amount = tonumber(amount), quoteAmount = quoteAmount, postOnly = postOnly, stp = tonumber(stp),
    cts = cts, clid = clid, filled = tonumber(filled), filledQuote = tonumber(filledQuote),
    fee = tonumber(fee), rsv = tonumber(rsv), status = status, uts = uts, v = tonumber(v) or 0,
  }
end
