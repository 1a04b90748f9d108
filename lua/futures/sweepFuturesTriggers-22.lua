--[[
  Take profit and stop loss of one market: every position whose trigger the mark price has crossed
  is closed at market (a long's TP when mark >= TP, its SL when mark <= SL; a short the other way
  round; docs/futures.md: triggers use the mark, which one small trade cannot move). Found by range
  queries on the trigger indices, never by a scan. A position that finds no
  liquidity stays in the index for the next sweep.

  Input:
    KEYS[1..22] the market's keys (includes/futures/commandKeys lists them; KEYS[10] is the last
      price, KEYS[16..19] the TP/SL indices)
    ARGV[1] engine key prefix   ARGV[3] timestamp, ms   ARGV[5] most positions per call
    ARGV[2] pair code           ARGV[4] stream MAXLEN     ARGV[6] mark price, ticks (the last price when '')
  Keys built while running (includes/keys, from ARGV[1]): for each position found, its order hash,
    account hash and account's open orders, a resting close
    order's hash; the close order's hash (its id comes from the counter); and for each maker met in
    the book the same keys as a position's.
    The market's trade history (records, time index, retention) and each trader's index in it:
    includes/tradeHistory builds them, in the market's slot (why they are not in KEYS: its header).
  Output:
    {'OK', closed count, {id, reason, ...}}
  Events: one entry on the futures market stream: trade*, done*, book*.
]]
local rcall = redis.call
--- @include "includes/futures/context"
--- @include "includes/futures/close"
--- @include "includes/futures/flush"
--- @include "includes/book"
--- @include "includes/fmt"

local P, pair, ts, maxlen, limit = ARGV[1], ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5])
local last = tonumber(ARGV[6] or '') or tonumber(rcall('GET', KEYS[10]) or '')
if not last then return { 'OK', '0', {} } end
local ctx = futuresContextFor(KEYS, P, pair, ts, maxlen)
local k = ctx.fkeys

local found, reasons = {}, {}
local function collect(key, min, max, reason)
  for _, id in ipairs(rcall('ZRANGEBYSCORE', key, min, max, 'LIMIT', 0, limit)) do
    local n = tonumber(id)
    if not reasons[n] then
      reasons[n] = reason
      found[#found + 1] = n
    end
  end
end
collect(k.tpL, '-inf', last, 'tp')
collect(k.tpS, last, '+inf', 'tp')
collect(k.slL, last, '+inf', 'sl')
collect(k.slS, '-inf', last, 'sl')
table.sort(found)

local out, closed = {}, 0
for _, id in ipairs(found) do
  local pos = fLoad(ctx, id)
  if pos and pos.status == FST.IN_POSITION and pos.openQty > 0 then
    if not bestOrder(ctx, ownSide(pos.side)) then break end
    fCancelWorking(ctx, pos)
    local c = fClose(ctx, pos, nil, reasons[id])
    if c.filled > 0 then
      closed = closed + 1
      out[#out + 1] = fmt(id)
      out[#out + 1] = reasons[id]
    end
  end
end
fCommit(ctx)
return { 'OK', fmt(closed), out }
