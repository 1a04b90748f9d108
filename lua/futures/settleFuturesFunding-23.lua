--[[
  One funding round of one market (once per round number: a replay settles nothing). The rate comes
  from the premium samples of the round (recordPremiumSample): P̄ = Σ k·P_k / Σ k (ppb), rate =
  P̄ + clamp(interest − P̄, ±0.05 %), capped at ±0.75 × the pair's maintenance margin rate, in ppm
  (src/domain/futures-prices.ts fundingRatePpm computes the same). Every open position's fee is
  notional at mark x |rate|: longs pay shorts when the rate is positive, shorts pay longs when negative.
  Zero-sum to the minor unit: a payer pays its fee rounded up, at most its margin; what was collected
  is split among the receivers pro rata by notional, rounded down; the residue of the split (less
  than one unit per receiver) goes to the insurance fund, which never pays funding. Nobody pays when
  nobody would receive. Payers' liquidation index entries follow their new margin (fCommit), so the
  liquidation sweep the caller runs next finds those at maintenance.

  Input:
    KEYS[1..22] the market's keys (includes/futures/commandKeys lists them; the positions in force
      are those of the liquidation indices KEYS[20] and KEYS[21]; KEYS[22] is unused)
    KEYS[23] the market's funding state (hash: round, rate, mark, ts; premium samples pn, pw, pslot)
    ARGV[1] engine key prefix   ARGV[4] interest, ppm per interval   ARGV[6] timestamp, ms
    ARGV[2] pair code           ARGV[5] round number                 ARGV[7] stream MAXLEN
    ARGV[3] mark price, ticks
  Keys built while running (includes/keys, from ARGV[1]): each position's order hash and account hash.
  Output:
    {'OK', positions settled, collected, paid, rate ppm, samples}   money in minor units of the margin currency
    {'SKIP', last round}                                            this round was settled already
  Events: one entry on the futures market stream: funding {rate, p, n, collected, paid, residue},
    then per position paid or paying fund {pos, u, a (account), amt (signed, minor units)}.
]]
local rcall = redis.call
--- @include "includes/futures/context"
--- @include "includes/futures/margin"
--- @include "includes/futures/flush"
--- @include "includes/keys"
--- @include "includes/mulDiv"
--- @include "includes/deltas"
--- @include "includes/fmt"

local P, pair, mark, interest, round, ts, maxlen =
  ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[6], ARGV[7]
local fundingKey = KEYS[23]
local done = tonumber(rcall('HGET', fundingKey, 'round') or '-1')
if done >= round then return { 'SKIP', fmt(done) } end

local ctx = futuresContextFor(KEYS, P, pair, ts, maxlen)

-- the rate, exactly as fundingRatePpm in src/domain/futures-prices.ts
local st = rcall('HMGET', fundingKey, 'pn', 'pw')
local n, w = tonumber(st[1] or '0'), tonumber(st[2] or '0')
local mean = 0
if n > 0 then mean = w / ((n * (n + 1)) / 2) end
local f = mean + math.max(-500000, math.min(500000, interest * 1000 - mean))
local rate
if f >= 0 then rate = math.floor(f / 1000 + 0.5) else rate = -math.floor(-f / 1000 + 0.5) end
local cap = math.floor(ctx.fut.mmr * 3 / 4)
rate = math.max(-cap, math.min(cap, rate))

-- floor(a * b / c) for 0 <= a, b, c < 2^50, by doubling over the bits of a (a x b may pass 2^53)
local function mulDivWide(a, b, c)
  local bit = 1
  while bit * 2 <= a do bit = bit * 2 end
  local q, r = 0, 0
  while bit >= 1 do
    q, r = q * 2, r * 2
    local qr = math.floor(r / c)
    q, r = q + qr, r - qr * c
    if a >= bit then
      a = a - bit
      r = r + b
      local qb = math.floor(r / c)
      q, r = q + qb, r - qb * c
    end
    bit = bit / 2
  end
  return q
end

-- the positions in force: each is in exactly one liquidation index; settled in id order
local ids = rcall('ZRANGE', ctx.fkeys.liqL, '0', '-1')
for _, id in ipairs(rcall('ZRANGE', ctx.fkeys.liqS, '0', '-1')) do ids[#ids + 1] = id end
table.sort(ids, function(a, b) return tonumber(a) < tonumber(b) end)
local absRate = math.abs(rate)
local payers, receivers, receiverWeight = {}, {}, 0
if rate ~= 0 then
  for _, id in ipairs(ids) do
    local pos = fLoad(ctx, id)
    if pos.status == FST.IN_POSITION and pos.openQty > 0 then
      local row = { pos = pos, notional = fNotional(ctx, mark, pos.openQty) }
      if (rate > 0) == (pos.side == 'buy') then
        payers[#payers + 1] = row
      else
        receivers[#receivers + 1] = row
        receiverWeight = receiverWeight + row.notional
      end
    end
  end
end

local collected, paid = 0, 0
if #payers > 0 and #receivers > 0 then
  for _, row in ipairs(payers) do
    local pos = row.pos
    local amt = math.min(mulDivCeil(row.notional, absRate, 1000000), pos.margin)
    pos.margin = pos.margin - amt
    pos.funding = pos.funding + amt
    addDelta(ctx, fAccountKeys(ctx, pos.acct).hash, 'locked', -amt)
    collected = collected + amt
    row.amt = -amt
    fDirty(ctx, pos)
  end
  for _, row in ipairs(receivers) do
    local pos = row.pos
    local amt = mulDivWide(collected, row.notional, receiverWeight)
    pos.margin = pos.margin + amt
    pos.funding = pos.funding - amt
    addDelta(ctx, fAccountKeys(ctx, pos.acct).hash, 'locked', amt)
    paid = paid + amt
    row.amt = amt
    fDirty(ctx, pos)
  end
end
local residue = collected - paid
addDelta(ctx, ctx.keys.insurance, ctx.fut.cur, residue)
local settled = 0
if collected > 0 then settled = #payers + #receivers end
rcall('HSET', fundingKey, 'round', fmt(round), 'rate', fmt(rate), 'mark', fmt(mark), 'ts', ts, 'pn', '0', 'pw', '0')
ctx.events[1] = { e = 'funding', rate = fmt(rate), p = fmt(mark), n = fmt(settled), collected = fmt(collected),
  paid = fmt(paid), residue = fmt(residue) }
-- each position's own payment, for its owner's private stream (a payer's amt is negative; rows
-- are paid only when there are both payers and receivers, and a zero payment changed nothing)
for _, rows in ipairs({ payers, receivers }) do
  for _, row in ipairs(rows) do
    if row.amt and row.amt ~= 0 then
      local pos = row.pos
      ctx.events[#ctx.events + 1] = { e = 'fund', pos = pos.idText or fmt(pos.id), u = pos.user, a = pos.acct,
        amt = fmt(row.amt) }
    end
  end
end
fCommit(ctx)
return { 'OK', fmt(settled), fmt(collected), fmt(paid), fmt(rate), fmt(n) }
