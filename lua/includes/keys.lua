--[[
  Engine key names that only a running script can know (a maker met in the book, the book of an
  order looked up by id). Mirrors src/redis/keys.ts, which test/unit/keys.test.ts checks;
  P is the engine prefix passed as ARGV[1] (`ex:{e0}:`), so these keys share the caller's slot.
]]
local function orderKey(P, id)
  return P .. 'order:' .. id
end

local function walletAvailKey(P, userId)
  return P .. 'wallet:' .. userId .. ':avail'
end

local function walletRsvKey(P, userId)
  return P .. 'wallet:' .. userId .. ':rsv'
end

local function userOpenKey(P, kind, pair, userId)
  return P .. 'uopen:' .. kind .. ':' .. pair .. ':' .. userId
end

local function bookKeys(P, kind, pair)
  local m = kind .. ':' .. pair .. ':'
  return {
    book = { bids = P .. 'book:' .. m .. 'bids', asks = P .. 'book:' .. m .. 'asks' },
    levels = { bids = P .. 'levels:' .. m .. 'bids', asks = P .. 'levels:' .. m .. 'asks' },
    lvlqty = { bids = P .. 'lvlqty:' .. m .. 'bids', asks = P .. 'lvlqty:' .. m .. 'asks' },
    seq = P .. 'bookseq:' .. kind .. ':' .. pair,
    events = P .. 'events:' .. kind .. ':' .. pair,
    last = P .. 'last:' .. kind .. ':' .. pair,
  }
end

-- Futures: accounts, and per pair the trigger indices (sorted sets, score = trigger price in
-- ticks, member = position id) and the set of positions in force.
local function futuresAccountKey(P, id)
  return P .. 'facct:' .. id
end

local function futuresKeys(P, pair)
  local t = P .. 'ftrig:' .. pair .. ':'
  return {
    tpL = t .. 'tpL', tpS = t .. 'tpS', slL = t .. 'slL', slS = t .. 'slS',
    liqL = t .. 'liqL', liqS = t .. 'liqS',
    active = P .. 'factive:' .. pair,
  }
end
