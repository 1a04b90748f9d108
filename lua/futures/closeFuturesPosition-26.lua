--[[
  Closes a position or cancels an order that is not filled (SPEC 4.3 close). An unfilled order is
  cancelled and its reservation released (status 30). A position (status 50) first loses whatever
  it still has working (the unfilled rest of its order, an earlier resting close order), then is
  closed against the book: at market (the unfilled rest is killed, so a thin book closes it in
  part), or at `limit` (what does not fill at once rests as the position's close order).

  Input:
    KEYS[1..22] the market's keys (includes/futures/commandKeys lists them)
    KEYS[23] the order hash                 KEYS[25] the account's Created/InPosition orders (zset)
    KEYS[24] the order's futures account    KEYS[26] the user's open futures orders on this pair (set)
    ARGV[1] engine key prefix   ARGV[4] limit price, ticks ('' for market)   ARGV[7] the order's pair code
    ARGV[2] user id             ARGV[5] timestamp, ms                        ARGV[8] the order's account id
    ARGV[3] isMarket 0 | 1      ARGV[6] stream MAXLEN
    The caller reads the order's pair and account (fields that never change) to name these keys;
    an order that is not on that pair and account is not found.
  Keys built while running (includes/keys, from ARGV[1]): the close order's hash (its id comes from
    the counter) and, for each maker met in the book, its order hash, account hash, account's open
    orders and its owner's open orders on this pair.
    The market's trade history (records, time index, retention) and each trader's index in it:
    includes/tradeHistory builds them, in the market's slot (why they are not in KEYS: its header).
  Output:
    {'OK', order hash as a flat list}
    {'ERR', 'ORDER_NOT_FOUND' | 'ORDER_NOT_ACTIVE' | 'NO_LIQUIDITY', ''}   nothing changed
  Events: one entry on the futures market stream: done, trade*, book*.
]]
local rcall = redis.call
--- @include "includes/futures/context"
--- @include "includes/futures/close"
--- @include "includes/futures/flush"
--- @include "includes/book"

local orderHash = KEYS[23]
local P, user, isMarket, limit, ts, maxlen = ARGV[1], ARGV[2], ARGV[3] == '1', tonumber(ARGV[4]), ARGV[5], ARGV[6]
local pair, acct = ARGV[7], ARGV[8]

local f = rcall('HMGET', orderHash, 'pair', 'kind', 'role', 'user', 'id', 'acct')
if not f[1] or f[2] ~= 'futures' or f[3] ~= 'open' or f[4] ~= user or f[1] ~= pair or f[6] ~= acct then
  return { 'ERR', 'ORDER_NOT_FOUND', '' }
end
local ctx = futuresContextFor(KEYS, P, pair, ts, maxlen)
fKnowOrder(ctx, f[5], orderHash)
fKnowAccount(ctx, acct, KEYS[24], KEYS[25])
fKnowUserOpen(ctx, user, KEYS[26])
local pos = fLoad(ctx, f[5])

if pos.status == FST.CREATED then
  fCancelWorking(ctx, pos)
  fCommit(ctx)
  return { 'OK', rcall('HGETALL', orderHash) }
end
if pos.status ~= FST.IN_POSITION then return { 'ERR', 'ORDER_NOT_ACTIVE', pos.status } end

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
fClose(ctx, pos, limit, 'close')
fCommit(ctx)
return { 'OK', rcall('HGETALL', orderHash) }
