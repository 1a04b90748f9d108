--[[
  Sets or clears the take profit or stop loss of an order or position (the futures trade routes, docs/futures.md#endpoints). Checked against
  the side: a long's take profit above its entry (the limit price while unfilled), its stop loss
  below; a short the other way round. The trigger indices follow at once.

  Input:
    KEYS[1..22] the market's keys (includes/futures/commandKeys lists them; the pair hash and the
      trigger indices are the ones this script touches)
    KEYS[23] the order hash
    ARGV[1] engine key prefix   ARGV[4] trigger price, ticks ('' clears it)
    ARGV[2] user id             ARGV[5] timestamp, ms
    ARGV[3] which: tp | sl      ARGV[6] the order's pair code (the caller reads it: it never changes)
                                ARGV[7] stream MAXLEN
  Keys built while running: none.
  Output:
    {'OK', the order record as a flat list (includes/futures/orderRecord)}
    {'ERR', 'ORDER_NOT_FOUND' | 'ORDER_NOT_ACTIVE' | 'INVALID_TRIGGER', detail}   nothing changed
  Events: one entry on the futures market stream: `trigger` {id, u, tp, sl} (ticks, '' none), the
    order's triggers as they now stand (copy trading copies them to the followers).
]]
local rcall = redis.call
--- @include "includes/futures/context"
--- @include "includes/futures/margin"
--- @include "includes/futures/flush"

local orderHash = KEYS[23]
local P, user, which, ticks, ts, pair, maxlen = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5], ARGV[6], ARGV[7]

local f, fixed, state = fReadRecord(orderHash)
if not f or f.role ~= 'open' or f.user ~= user or f.pair ~= pair then
  return { 'ERR', 'ORDER_NOT_FOUND', '' }
end
local ctx = futuresContextFor(KEYS, P, pair, ts, maxlen)
fKnowOrder(ctx, f.id, orderHash)
local pos = fLoad(ctx, f.id, fixed, state)
if pos.status ~= FST.CREATED and pos.status ~= FST.IN_POSITION then return { 'ERR', 'ORDER_NOT_ACTIVE', pos.status } end

if ticks then
  local ref = fEntry(pos)
  local long = pos.side == 'buy'
  local above = (which == 'tp') == long
  if (above and ticks <= ref) or (not above and ticks >= ref) then
    local name = 'takeProfit'
    if which == 'sl' then name = 'stopLoss' end
    return { 'ERR', 'INVALID_TRIGGER', name }
  end
end
pos[which] = ticks
fDirty(ctx, pos)
ctx.events[#ctx.events + 1] = { e = 'trigger', id = fmt(pos.id), u = user, tp = optTicks(pos.tp), sl = optTicks(pos.sl) }
fCommit(ctx)
return { 'OK', rcall('HGETALL', orderHash) }
