--[[
  The keys of a futures command. The market's come from KEYS[1..22] in this order
  (the caller passes them: src/futures/futures-script-keys.ts builds the same list):
    1 the pair hash           6 level quantities bids   11 order id counter      16 TP index, longs
    2 book bids               7 level quantities asks   12 trade id counter      17 TP index, shorts
    3 book asks               8 book sequence           13 fees collected        18 SL index, longs
    4 level prices bids       9 market event stream     14 insurance fund        19 SL index, shorts
    5 level prices asks      10 last price              15 pnl pool              20 liquidation index, longs
                                                                                 21 liquidation index, shorts
                                                                                 22 unused (was the set of
                                                                                    positions in force: the
                                                                                    liquidation indices are
                                                                                    that set; the slot stays
                                                                                    so six scripts keep their
                                                                                    numbering)
  A script's own keys follow from KEYS[23]. Keys of orders, accounts and users: the caller's own
  arrive in KEYS too (the script registers them with fKnow*), any other (a maker met in the book, a
  position found by a sweep, a new order) is built from the engine prefix by includes/keys, once
  per command.
]]
--- @include "includes/keys"
--- @include "includes/fmt"

-- The market's keys as ctx.keys (book, counters, money) and ctx.fkeys (trigger indices) hold them.
local function futuresMarketKeys(KEYS)
  local keys = {
    book = { bids = KEYS[2], asks = KEYS[3] }, levels = { bids = KEYS[4], asks = KEYS[5] },
    lvlqty = { bids = KEYS[6], asks = KEYS[7] }, seq = KEYS[8], events = KEYS[9], last = KEYS[10],
    orderIds = KEYS[11], tradeIds = KEYS[12], fees = KEYS[13], insurance = KEYS[14], pool = KEYS[15],
  }
  local fkeys = { tpL = KEYS[16], tpS = KEYS[17], slL = KEYS[18], slS = KEYS[19], liqL = KEYS[20], liqS = KEYS[21] }
  return keys, fkeys
end

-- Keys the caller passed in KEYS (its order, its account's hash and open orders): fOrderKey and
-- fAccountKeys answer them instead of building the names.
local function fKnowOrder(ctx, id, key)
  ctx.orderKeys[tonumber(id)] = key
end

-- `finishedKey`: its index of finished orders (includes/futures/accountIndex), when the caller has it.
local function fKnowAccount(ctx, acct, hashKey, openKey, finishedKey)
  local k = ctx.accounts[acct]
  -- an earlier order of the batch may have named it already (the names are the same)
  if k and k.hash == hashKey and k.open == openKey and k.finished == finishedKey then return end
  ctx.accounts[acct] = { hash = hashKey, open = openKey, finished = finishedKey }
end

-- An order's hash: the caller's from KEYS, any other (a maker met in the book, a position found by
-- a sweep, a new order) built from the engine prefix. `id` is a number, printed by fmt: `..` would
-- print it with '%.14g' (slower, and in exponent form past 1e14).
local function fOrderKey(ctx, id)
  local k = ctx.orderKeys[id]
  if not k then
    k = orderKey(ctx.P, fmt(id))
    ctx.orderKeys[id] = k
  end
  return k
end

-- An account's hash (and, when the caller passed them, its order indices): the caller's from KEYS,
-- any other's (a maker met in the book, a position found by a sweep) built from the engine prefix.
-- The open-orders index is built where it is used (includes/futures/accountIndex): most accounts met
-- never need it (a maker's position stays open).
local function fAccountKeys(ctx, acct)
  local k = ctx.accounts[acct]
  if not k then
    k = { hash = futuresAccountKey(ctx.P, acct) }
    ctx.accounts[acct] = k
  end
  return k
end

