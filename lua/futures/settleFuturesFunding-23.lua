--[[
  One funding round of one market (once per round number: a replay settles nothing). Every open
  position pays or receives notional at mark x rate: longs pay shorts when the rate is positive,
  shorts pay longs when it is negative. Payments come out of and go into the positions' margins.
  Payers round up (never more than the margin they have), receivers round down; the difference
  goes to the insurance fund, so the round is zero-sum between the accounts and the fund.

  Input:
    KEYS[1..22] the market's keys (includes/futures/commandKeys lists them; KEYS[22] is the set of
      positions in force)
    KEYS[23] the market's funding state (hash: round, rate, mark, ts)
    ARGV[1] engine key prefix   ARGV[4] rate, parts per million, signed   ARGV[6] timestamp, ms
    ARGV[2] pair code           ARGV[5] round number                      ARGV[7] stream MAXLEN
    ARGV[3] mark price, ticks
  Keys built while running (includes/keys, from ARGV[1]): each position's order hash and account hash.
  Output:
    {'OK', positions settled, collected, paid}   minor units of the margin currency
    {'SKIP', last round}                         this round was settled already
  Events: one entry on the futures market stream: funding {rate, p, n, collected, paid}.
]]
local rcall = redis.call
--- @include "includes/futures/context"
--- @include "includes/futures/margin"
--- @include "includes/futures/flush"
--- @include "includes/keys"
--- @include "includes/mulDiv"
--- @include "includes/deltas"
--- @include "includes/fmt"

local P, pair, mark, rate, round, ts, maxlen =
  ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[6], ARGV[7]
local fundingKey = KEYS[23]
local done = tonumber(rcall('HGET', fundingKey, 'round') or '-1')
if done >= round then return { 'SKIP', fmt(done) } end

local ctx = futuresContextFor(KEYS, P, pair, ts, maxlen)
local ids = rcall('SMEMBERS', ctx.fkeys.active)
table.sort(ids, function(a, b) return tonumber(a) < tonumber(b) end)
local absRate = math.abs(rate)
local collected, paid, n = 0, 0, 0
for _, id in ipairs(ids) do
  local pos = fLoad(ctx, id)
  if pos.status == FST.IN_POSITION and pos.openQty > 0 and rate ~= 0 then
    local notional = fNotional(ctx, mark, pos.openQty)
    local akey = fAccountKeys(ctx, pos.acct).hash
    local pays = (rate > 0) == (pos.side == 'buy')
    if pays then
      local amt = math.min(mulDivCeil(notional, absRate, 1000000), pos.margin)
      pos.margin = pos.margin - amt
      pos.funding = pos.funding + amt
      addDelta(ctx, akey, 'locked', -amt)
      collected = collected + amt
    else
      local amt = mulDivFloor(notional, absRate, 1000000)
      pos.margin = pos.margin + amt
      pos.funding = pos.funding - amt
      addDelta(ctx, akey, 'locked', amt)
      paid = paid + amt
    end
    n = n + 1
    fDirty(ctx, pos)
  end
end
addDelta(ctx, ctx.keys.insurance, ctx.fut.cur, collected - paid)
rcall('HSET', fundingKey, 'round', fmt(round), 'rate', fmt(rate), 'mark', fmt(mark), 'ts', ts)
ctx.events[1] = { e = 'funding', rate = fmt(rate), p = fmt(mark), n = fmt(n), collected = fmt(collected),
  paid = fmt(paid) }
fCommit(ctx)
return { 'OK', fmt(n), fmt(collected), fmt(paid) }
