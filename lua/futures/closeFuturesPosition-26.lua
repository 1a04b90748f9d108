--[[
  Closes a position or cancels an order that is not filled (the close route, docs/futures.md#endpoints). An unfilled order is
  cancelled and its reservation released (status 30). A position (status 50) first loses whatever
  it still has working (the unfilled rest of its order, an earlier resting close order), then is
  closed against the book: at market (the unfilled rest is killed, so a thin book closes it in
  part), or at `limit` (what does not fill at once rests as the position's close order). With an
  amount below the open quantity only that much is closed (a partial close): each fill releases
  its share of the margin with its realized pnl (includes/futures/fill) and the rest stays open
  with its TP/SL.

  Input:
    KEYS[1..22] the market's keys (includes/futures/commandKeys lists them)
    KEYS[23] the order hash                 KEYS[25] the account's Created/InPosition orders (zset)
    KEYS[24] the order's futures account    KEYS[26] the user's futures clientOrderId -> order id (hash)
    ARGV[1] engine key prefix   ARGV[4] limit price, ticks ('' for market)   ARGV[7] the order's pair code
    ARGV[2] user id             ARGV[5] timestamp, ms                        ARGV[8] the order's account id
    ARGV[3] isMarket 0 | 1      ARGV[6] stream MAXLEN                        ARGV[9] lots to close ('' all)
    ARGV[10] the close's clientOrderId ('' none): a repeat does nothing (copy trading's closes)
    ARGV[11] share numerator ('' none)   ARGV[12] share denominator   ARGV[13] the pair's lot, lots
      A share (copy trading's mirror of a master's partial close: lots the master closed / lots it
      held before) closes that fraction of the open quantity as it stands now, down to the lot, in
      place of ARGV[9]: two mirrors of one master close that run at once each take their fraction of
      what the other left (issue 24 finding 7). A share worth less than a lot closes nothing.
    The caller reads the order's pair and account (fields that never change) to name these keys;
    an order that is not on that pair and account is not found.
  Keys built while running (includes/keys, from ARGV[1]): the close order's hash (its id comes from
    the counter) and, for each maker met in the book, its order hash, account hash, account's open
    orders.
    The market's trade history (records, time index, retention) and each trader's index in it:
    includes/tradeHistory builds them, in the market's slot (why they are not in KEYS: its header).
  Output:
    {'OK', the order record as a flat list (includes/futures/orderRecord)}
    {'DUP', the order record as a flat list}    the clientOrderId was used: nothing done
    {'ERR', 'ORDER_NOT_FOUND' | 'ORDER_NOT_ACTIVE' | 'NO_LIQUIDITY', ''}   nothing changed
  Events: one entry on the futures market stream: done, trade*, book*.
]]
local rcall = redis.call
--- @include "includes/futures/context"
--- @include "includes/futures/close"
--- @include "includes/futures/flush"
--- @include "includes/book"
--- @include "includes/mulDiv"

local orderHash = KEYS[23]
local P, user, isMarket, limit, ts, maxlen = ARGV[1], ARGV[2], ARGV[3] == '1', tonumber(ARGV[4]), ARGV[5], ARGV[6]
local pair, acct, lots, clid = ARGV[7], ARGV[8], tonumber(ARGV[9]), ARGV[10]
local shareNum, shareDen, lotStep = tonumber(ARGV[11] or ''), tonumber(ARGV[12] or ''), tonumber(ARGV[13] or '')

local f, fixed, state = fReadRecord(orderHash)
if not f or f.role ~= 'open' or f.user ~= user or f.pair ~= pair or f.acct ~= acct then
  return { 'ERR', 'ORDER_NOT_FOUND', '' }
end
if clid ~= '' and rcall('HEXISTS', KEYS[26], clid) == 1 then return { 'DUP', rcall('HGETALL', orderHash) } end
local ctx = futuresContextFor(KEYS, P, pair, ts, maxlen)
fKnowOrder(ctx, f.id, orderHash)
fKnowAccount(ctx, acct, KEYS[24], KEYS[25])
local pos = fLoad(ctx, f.id, fixed, state)

if pos.status == FST.CREATED then
  fCancelWorking(ctx, pos)
  fCommit(ctx)
  return { 'OK', rcall('HGETALL', orderHash) }
end
if pos.status ~= FST.IN_POSITION then return { 'ERR', 'ORDER_NOT_ACTIVE', pos.status } end
if shareNum then
  lots = mulDivFloor(pos.openQty, shareNum, shareDen)
  lots = lots - lots % lotStep
  if lots <= 0 then return { 'OK', rcall('HGETALL', orderHash) } end
end

if isMarket then
  limit = nil
  -- someone other than the position's own resting order must be there to close against
  local top = rcall('ZRANGE', ctx.keys.book[ownSide(pos.side)], 0, 1)
  local other = false
  for _, m in ipairs(top) do
    if tonumber(m) ~= pos.id then other = true end
  end
  if not other then return { 'ERR', 'NO_LIQUIDITY', '' } end
end

fCancelWorking(ctx, pos)
local c = fClose(ctx, pos, limit, 'close', false, lots)
if clid ~= '' then rcall('HSET', KEYS[26], clid, c.id) end
fCommit(ctx)
return { 'OK', rcall('HGETALL', orderHash) }
