--[[
  Liquidation of one market at a mark price: every position whose liquidation price the mark has
  crossed (long: mark <= liq, short: mark >= liq; range queries on the liquidation indices) is
  liquidated (includes/futures/liquidation): an immediate-or-cancel close at its bankruptcy price
  against the book (fills trade type 3, no taker fee), what is left of its margin to the insurance
  fund, the rest taken over by the fund while it can pay, then auto-deleveraging of opposite
  positions at the bankruptcy price. The account gets nothing back from the position; the fund never
  goes negative. A position neither the book, the fund nor ADL can take stays indexed.

  Input:
    KEYS[1..22] the market's keys (includes/futures/commandKeys lists them; KEYS[20..21] are the
      liquidation indices)
    ARGV[1] engine key prefix   ARGV[4] timestamp, ms   ARGV[6] most positions per call
    ARGV[2] pair code           ARGV[5] stream MAXLEN
    ARGV[3] mark price, ticks
  Keys built while running (includes/keys, from ARGV[1]): for each position found, its order hash,
    account hash and account's open orders, its owner's open orders on this pair, a resting close
    order's hash; the close order's hash (its id comes from the counter); for each maker met in
    the book the same keys as a position's; for ADL, every opposite position's order and account keys.
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
--- @include "includes/futures/flush"
--- @include "includes/book"
--- @include "includes/fmt"

local P, pair, mark, ts, maxlen, limit = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4], ARGV[5], tonumber(ARGV[6])
local ctx = futuresContextFor(KEYS, P, pair, ts, maxlen)
local k = ctx.fkeys

local found = {}
for _, id in ipairs(rcall('ZRANGEBYSCORE', k.liqL, mark, '+inf', 'LIMIT', 0, limit)) do found[#found + 1] = tonumber(id) end
for _, id in ipairs(rcall('ZRANGEBYSCORE', k.liqS, '-inf', mark, 'LIMIT', 0, limit)) do found[#found + 1] = tonumber(id) end
table.sort(found)

local out = {}
for _, id in ipairs(found) do
  local pos = fLoad(ctx, id)
  if pos and pos.status == FST.IN_POSITION and pos.openQty > 0 then
    if fLiquidate(ctx, pos, mark) > 0 then out[#out + 1] = fmt(id) end
  end
end
fCommit(ctx)
return { 'OK', fmt(#out), out }
