--[[
  Liquidation of one market at a mark price: every position whose liquidation price the mark has
  crossed (long: mark <= liq, short: mark >= liq; range queries on the liquidation indices) is
  liquidated (includes/futures/liquidation): an immediate-or-cancel close at its bankruptcy price
  against the book (fills trade type 3, no taker fee), what is left of its margin to the insurance
  fund, a position the fund holds on the other side, then a takeover by the fund while it can pay,
  then auto-deleveraging of opposite positions at the bankruptcy price (its last resort included:
  open interest is zero-sum, so every liquidated position closes). The account gets nothing back
  from the position; the fund never goes negative. Then the fund unwinds what it holds
  (includes/futures/fundUnwind), and positions those fills left crossed are liquidated in turn:
  after the call nothing the mark crosses is open, unless the limit of positions was reached.

  Input:
    KEYS[1..22] the market's keys (includes/futures/commandKeys lists them; KEYS[20..21] are the
      liquidation indices)
    ARGV[1] engine key prefix   ARGV[4] timestamp, ms   ARGV[6] most positions per call
    ARGV[2] pair code           ARGV[5] stream MAXLEN
    ARGV[3] mark price, ticks
  Keys built while running (includes/keys, from ARGV[1]): for each position found, its order hash,
    account hash and account's open orders, a resting close
    order's hash; the close order's hash (its id comes from the counter); for each maker met in
    the book the same keys as a position's; for ADL, every opposite position's order and account keys; for the fund's unwind, the makers'.
    The market's trade history (records, time index, retention) and each trader's index in it:
    includes/tradeHistory builds them, in the market's slot (why they are not in KEYS: its header).
  Output:
    {'OK', liquidated count, {id, ...}}
  Events: one entry on the futures market stream: trade* (tt 3), takeover*, adl*, done*, book*.
]]
local rcall = redis.call
--- @include "includes/futures/context"
--- @include "includes/futures/close"
--- @include "includes/futures/liquidation"
--- @include "includes/futures/fundUnwind"
--- @include "includes/futures/flush"
--- @include "includes/book"
--- @include "includes/fmt"

local P, pair, mark, ts, maxlen, limit = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4], ARGV[5], tonumber(ARGV[6])
local ctx = futuresContextFor(KEYS, P, pair, ts, maxlen)
local k = ctx.fkeys

local function crossed(o)
  if o.role == 'close' or o.status ~= FST.IN_POSITION or o.openQty <= 0 then return false end
  local liq = fLiqPrice(ctx, o)
  return (o.side == 'buy' and mark <= liq) or (o.side == 'sell' and mark >= liq)
end

local found = {}
for _, id in ipairs(rcall('ZRANGEBYSCORE', k.liqL, mark, '+inf', 'LIMIT', 0, limit)) do found[#found + 1] = tonumber(id) end
for _, id in ipairs(rcall('ZRANGEBYSCORE', k.liqS, '-inf', mark, 'LIMIT', 0, limit)) do found[#found + 1] = tonumber(id) end
table.sort(found)

local out, tried = {}, {}
-- rounds until nothing is crossed: a liquidation's IOC or the fund's unwind can fill a resting opening
-- order that starts beyond its own liquidation price (a bid above the mark at high leverage); such a
-- position changed in this command, and the indices are only written at its end, so it is looked for
-- among the orders the command changed
while true do
  for _, id in ipairs(found) do
    local pos = fLoad(ctx, id)
    tried[id] = true
    if #out < limit and pos and pos.status == FST.IN_POSITION and pos.openQty > 0 and fLiquidate(ctx, pos, mark) > 0 then
      out[#out + 1] = fmt(id)
    end
  end
  fUnwindFund(ctx, mark)
  found = {}
  if #out < limit then
    for _, o in ipairs(ctx.dirtyOrder) do
      if not tried[o.id] and crossed(o) then found[#found + 1] = o.id end
    end
  end
  if #found == 0 then break end
end
fCommit(ctx)
return { 'OK', fmt(#out), out }
