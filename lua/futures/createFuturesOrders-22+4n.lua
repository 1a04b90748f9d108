--[[
  Places a batch of futures orders on one market (the futures trade routes, docs/futures.md#endpoints), in the order given, each exactly as
  if it came alone (includes/futures/createOrder: idempotency, account and leverage checks, TP/SL
  side check, post-only, margin check at the worst price the order can fill at, reservation,
  matching, resting the rest of a limit order unless IOC, trigger indices). Each order's writes are made
  before the next starts, so a later order's margin check counts what the earlier ones reserved,
  filled or released. A rejected order changes nothing and does not stop the others. One atomic
  step with one event entry: group commit (docs/performance.md), the API sends together what
  arrived while the market's previous call ran; an order on a quiet market is a batch of one.
  An order becomes a position (status 50) with its first fill (docs/futures.md).

  Input: n orders; the file name says 22 keys plus 4 per order.
    KEYS[1..22] the market's keys (includes/futures/commandKeys lists them: pair hash, book, levels,
      book sequence, events, last price, order and trade ids, fees, insurance fund, pnl pool,
      trigger indices, an unused slot)
    per order i, from k = 22 + 4 (i - 1):
    KEYS[k+1] user's futures clientOrderId -> order id (hash)
    KEYS[k+2] the futures account hash
    KEYS[k+3] the account's finished opening orders (zset by id; includes/futures/accountIndex)
    KEYS[k+4] the account's opening orders that are Created or InPosition (zset by id); the account's
      orders are the union of the two, a user's orders those of their accounts
    ARGV[1]  engine key prefix   ARGV[2]  pair code   ARGV[3]  stream MAXLEN
    per order i, from a = 3 + 7 (i - 1):
    ARGV[a+1] user id                      ARGV[a+5] futures account id
    ARGV[a+2] side: buy (long) | sell      ARGV[a+6] timestamp, ms
    ARGV[a+3] price, ticks ('' market)     ARGV[a+7] options, '' for none of them (a limit order,
    ARGV[a+4] amount, lots                   neither post-only nor IOC, stp 0, no TP/SL, no clientOrderId);
      else "<isMarket 0|1><0 | 1 postOnly | I immediate or cancel><self-trade prevention 0-3>|<take
      profit, ticks>|<stop loss, ticks>|<clientOrderId>", '' for an absent one ("100|||", "010|500|490|c1")
  Keys built while running (includes/keys, from ARGV[1]): each new order's hash (its id comes from
    the counter) and, for each maker met in the book, its order hash, account hash, account's open
    orders; a DUP reply reads the earlier order's hash.
    The market's trade history (records, time index, retention) and each trader's index in it:
    includes/tradeHistory builds them, in the market's slot (why they are not in KEYS: its header).
  Output: one reply per order, in order:
    {'OK', id, clientOrderId, status}    placed (matched, rested, or ended)
    {'DUP', id, clientOrderId, status}   clientOrderId already used by this user: nothing done
    {'ERR', code, detail}                rejected, nothing changed: PAIR_NOT_FOUND, ACCOUNT_NOT_FOUND,
      CURRENCY_MISMATCH, LEVERAGE_ABOVE_MAX, NO_LIQUIDITY, INVALID_TRIGGER, ORDER_POST_ONLY_WOULD_TAKE,
      NOTIONAL_TOO_LARGE, INSUFFICIENT_MARGIN (detail: the margin the order needs, minor units),
      CLIENT_ORDER_ID_ELSEWHERE (detail `@<shard>`: the registry at home gave the clientOrderId to an
      order on that shard; lua/spot/claimClientOrderId-1.lua)
    {'ERR', 'ENGINE_ERROR', message}     a runtime error (a bug) in this order or an earlier one of
                                         the batch; the orders before it stay placed in full
    (the exactly-once form answers these lists as its record's JSON text: includes/operationRecord)
  Events: one entry on the futures market stream for the batch: per order accepted, trade*, done*;
    book* for the batch (includes/publishEvents).
]]
--- @include "includes/futures/createOrder"
--- @include "includes/futures/triggerIndex"
--- @include "includes/futures/context"
--- @include "includes/publishEvents"
--- @include "includes/idCounter"
--- @include "includes/deltas"
--- @include "includes/operationRecord"
--- @include "includes/globals"

local n = (#KEYS - 22) / 4
-- what the call's orders share, emptied for this call (includes/futures/context futuresBatch names
-- its fields); the replies start with the array slots of a usual batch (4 orders)
local b = futuresBatch(ARGV, n)
local replies = { nil, nil, nil, nil }
-- globals from their upvalues (includes/globals): a lookup costs ~270 instructions
local pcall, next = TPCALL or pcallOf(), TNEXT or tnextOf()
for i = 1, n do
  local before = #b.events
  b.allocated = nil
  local ok, reply = pcall(fCreateOrder, KEYS, ARGV, b, 22 + 4 * (i - 1), 3 + 7 * (i - 1))
  if not ok then
    -- A runtime error is a bug, never a business rejection. Its order's changes were still in its
    -- own context, unwritten: they are dropped with its events and its id goes back, so the order
    -- leaves no trace (but for book levels it already moved while matching, which Redis cannot undo
    -- and which the entry below reports as they stand). The orders before it are written in full;
    -- this order and the rest of the batch answer ENGINE_ERROR.
    for j = #b.events, before + 1, -1 do b.events[j] = nil end
    if b.allocated then b.oidNext = b.allocated end
    b.ctx = nil
    for j = i, n do replies[j] = { 'ERR', 'ENGINE_ERROR', tostring(reply) } end
    break
  end
  replies[i] = reply
end
-- the id counters as one INCR per id would have left them, the fees pot and the positions'
-- liquidation entries (includes/futures/triggerIndex), before anything else can fail
idsWrite(b, KEYS[11], KEYS[12])
flushHeld(KEYS[13], b.fees)
fWriteLiqEntries(b, KEYS[20], KEYS[21])
local bookChanged = next(b.changed.bids) ~= nil or next(b.changed.asks) ~= nil
if #b.events > 0 or bookChanged then
  -- only an order past the pair check has events or moved the book, so the pair is there
  -- the context of the batch's last order serves (publishEvents reads none of what an order left in it)
  local ctx = b.ctx or futuresContextFor(KEYS, b.P, b.pair, b.ts or ARGV[9], b.maxlen, b.market)
  ctx.ts = b.ts or ARGV[9]
  ctx.events, ctx.changed, ctx.lastTicks, ctx.bookChanged = b.events, b.changed, b.lastTicks, bookChanged
  publishEvents(ctx)
end
-- the call went through: its tables serve the next one (futuresBatch)
b.inUse = false
-- every reply is a list of strings ({tag, id, clientOrderId, status} or {'ERR', code, detail})
if n > 0 then answerAsRecord(replies) end
return replies
