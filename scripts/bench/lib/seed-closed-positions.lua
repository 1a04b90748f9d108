--[[
  Bench seeding (npm run bench:copy-reads), not part of the engine library: writes n closed
  positions of one futures account as the engine leaves them (order record with status 20, the
  account's order index) and passes each through the engine's own aggregate code
  (includes/futures/accountStats: fStatsOrder per order, fStatsCommit once), so the aggregates and
  rankings are exactly those trading would leave, at a fraction of matching's cost.

  Input: KEYS none (every key built from the prefix, as the engine builds a maker's)
    ARGV[1] engine key prefix   ARGV[2] account id   ARGV[3] user   ARGV[4] pair   ARGV[5] first order id
    ARGV[6] first close time, ms   ARGV[7] ms between closes   ARGV[8] the pair's minor units per tick x lot
    then per position, 4 values: side (buy | sell), amount (lots), entry cost (ticks x lots), realized pnl
    (minor units); its fee is 1/2000 of the entry notional, opened and closed at its close time
  Output: {'OK', n}
]]
--- @include "includes/keys"
--- @include "includes/fmt"
--- @include "includes/futures/accountStats"
--- @include "includes/futures/orderRecord"

local P, acct, user, pair = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local id, t0, step, ns = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
local ctx = { P = P }
local n = 0
for i = 9, #ARGV, 4 do
  local side, amount, ecost, rpnl = ARGV[i], tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2]), tonumber(ARGV[i + 3])
  local ts = t0 + n * step
  ctx.ts = fmt(ts)
  local fee = math.floor(ecost * ns / 2000)
  local o = { id = id + n, role = 'open', user = user, acct = acct, pair = pair, side = side, status = '20',
    isMarket = true, amount = amount, lev = 10, stp = 0, filled = amount, rsv = 0, rpnl = rpnl, fee = fee, funding = 0,
    ecost = ecost, cost = 0, openQty = 0, margin = 0, imargin = 0, closeOrd = '', closeReason = 'close' }
  redis.call('HSET', orderKey(P, o.id), 'futures', fFixedText(o, '0', ctx.ts, ''), 'state', fStateText(o, ctx.ts))
  redis.call('ZADD', P .. 'facctorders:' .. acct, o.id, fmt(o.id))
  fStatsOrder(ctx, o)
  n = n + 1
end
fStatsCommit(ctx)
return { 'OK', n }
