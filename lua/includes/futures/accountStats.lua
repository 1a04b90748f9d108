--[[
  Trading aggregates of the futures accounts copy trading reads, kept in the same step as their
  orders: fFlush calls fStatsOrder for each opening order of such an account it writes and
  fStatsCommit once after the last, so a read of an account's analytics or of the rankings costs
  O(days + open positions), never O(history).

  Which accounts: those whose hash has `stats` = '1' (tracked), a master's account and a copy
  subscription's (docs/copy-trading.md "Read models"); no one reads a plain trader's, so its orders
  do no aggregate work at all (the aggregates were a quarter of a crossing order's cost). The flag
  is set for good: at the birth of the account (createFuturesAccount), or by fStatsTrack in the
  step that makes an existing account one (rankFuturesAccount, the listing of a master; the
  deployment's backfill), which rebuilds its aggregates from its orders in the same step, so they
  are exact from then on whatever the account did before. A command asks once per account
  (fStatsTracked, one HGET; the taker's comes with the HMGET createOrder makes of its hash), a
  createFuturesOrders batch once for all its orders (no step that sets the flag runs inside it).

  Each opening order that has filled contributes a part (fStatsPart), a function of its own fields
  only; the aggregates are the sum of the parts of the account's orders. A write removes the order's
  part as loaded (its record's texts, o.origFixed and o.origState) or as last written in the command
  (o.orig) and adds its part as written, so the sums follow every change exactly once.
  The parts are those of src/copy/copy-analytics.ts (docs/copy-trading.md "Read models"):
    net   rpnl − fee − funding                   trades  1, or 2 once some quantity closed
    vq    ecost, + (ecost − cost) once closed     vr      ± rpnl once closed (+ long): volume = vq·ns + vr
    days  the UTC day of cts, and of uts once some quantity closed
    a closed position (status 20) puts its net on the day of uts; an open one's counts today (on read)
  Days are UTC day numbers: floor(ms / 86400000).

  Keys (includes/keys, from the engine prefix):
    fstats:<acct>  hash  net, open (net of orders not closed), on (how many), fund, trades, days,
                         p:<pair>:t|n|vq|vr per pair,
                         dd, ddDay, ddPeak, ddEq: the drawdown state of a ranked account,
                         dver: the version of fdaily, raised whenever a day of it changes
    fdaily:<acct>  hash  <day> net of the positions closed that day (all a read of the series takes)
    fdays:<acct>   hash  a:<day> how many parts name the day (trading days = days with one),
                         c:<day> how many positions closed that day (the day leaves fdaily at 0)
    frank          hash  acct -> "<base equity, minor>:<decimals>" the ranked accounts
    frank:roi|pnl|days|dd  zsets of the ranked accounts (includes/futures/accountRank)
]]
--- @include "includes/keys"
--- @include "includes/fmt"
--- @include "includes/futures/commandKeys"
--- @include "includes/futures/orderRecord"
--- @include "includes/futures/accountRank"
--- @include "includes/rcall"

local function fStatsNum(v)
  if v == nil or v == '' then return 0 end
  return tonumber(v)
end

local function fStatsDay(ms)
  return math.floor(tonumber(ms) / 86400000) -- ms a day
end

-- The part of one opening order, from its fields; nil when nothing filled.
local function fStatsPart(status, filled, rpnl, fee, funding, ecost, cost, side, cts, uts)
  if not (filled > 0) then return nil end
  local p = { net = rpnl - fee - funding, fund = funding, closed = status == '20', t = 1, vq = ecost, vr = 0,
    d1 = fStatsDay(cts) }
  local closedQ = ecost - cost
  if closedQ > 0 then
    p.t = 2
    p.vq = ecost + closedQ
    if side == 'buy' then p.vr = rpnl else p.vr = -rpnl end
    p.d2 = fStatsDay(uts)
  end
  return p
end

local function fStatsAdd(t, field, v)
  if v ~= 0 then t[field] = (t[field] or 0) + v end
end

-- Adds sign x part to the account's pending changes (ctx.stats[acct]).
local function fStatsApply(ctx, acct, pair, p, sign)
  if not p then return end
  ctx.stats = ctx.stats or {}
  local s = ctx.stats[acct]
  if not s then
    s = { f = {}, a = {}, d = {}, dc = {} }
    ctx.stats[acct] = s
    ctx.statsOrder = ctx.statsOrder or {}
    ctx.statsOrder[#ctx.statsOrder + 1] = acct
  end
  local f, pre = s.f, 'p:' .. pair .. ':'
  fStatsAdd(f, 'net', sign * p.net)
  fStatsAdd(f, 'fund', sign * p.fund)
  fStatsAdd(f, 'trades', sign * p.t)
  fStatsAdd(f, pre .. 't', sign * p.t)
  fStatsAdd(f, pre .. 'n', sign * p.net)
  fStatsAdd(f, pre .. 'vq', sign * p.vq)
  fStatsAdd(f, pre .. 'vr', sign * p.vr)
  fStatsAdd(s.a, p.d1, sign)
  if p.d2 then fStatsAdd(s.a, p.d2, sign) end
  if p.closed then
    local day = p.d2 or fStatsDay(ctx.ts)
    s.d[day] = (s.d[day] or 0) + sign * p.net
    s.dc[day] = (s.dc[day] or 0) + sign
  else
    fStatsAdd(f, 'open', sign * p.net)
    fStatsAdd(f, 'on', sign)
  end
end

-- The command's answers so far: account -> whether it keeps aggregates.
local function fStatsFlags(ctx)
  local t = ctx.tracked
  if not t then
    t = {}
    ctx.tracked = t
  end
  return t
end

-- What the caller read of the account hash's `stats` field (its taker's, read anyway): no HGET for it.
local function fStatsKnow(ctx, acct, flag)
  -- the table is there after a batch's first order: no call for it
  local t = ctx.tracked or fStatsFlags(ctx)
  t[acct] = flag == '1'
end

-- Whether the account keeps aggregates: one HGET per account per command.
local function fStatsTracked(ctx, acct)
  local t = ctx.tracked or fStatsFlags(ctx)
  local v = t[acct]
  if v == nil then
    local call = RCALL or rcallOf()
    v = call('HGET', fAccountKeys(ctx, acct).hash, 'stats') == '1'
    t[acct] = v
  end
  return v
end

-- The change one written opening order makes: its part as loaded out, its part as written in.
local function fStatsOrder(ctx, o)
  -- as last written in this command, else as loaded (includes/futures/context fLoad keeps the texts)
  local h = o.orig
  if not h and o.origState then h = fRecordOf(o.origFixed, o.origState) end
  if h then
    fStatsApply(ctx, o.acct, o.pair, fStatsPart(h.status, fStatsNum(h.filled), fStatsNum(h.rpnl),
      fStatsNum(h.fee), fStatsNum(h.funding), fStatsNum(h.ecost), fStatsNum(h.cost),
      h.side, h.cts or ctx.ts, h.uts or ctx.ts), -1)
  end
  local cts = (h and h.cts) or ctx.ts
  fStatsApply(ctx, o.acct, o.pair, fStatsPart(o.status, o.filled, o.rpnl, o.fee, o.funding, o.ecost, o.cost,
    o.side, cts, ctx.ts), 1)
  -- as written: a second flush of the same order in this command takes out this part, not the first
  o.orig = { status = o.status, filled = o.filled, rpnl = o.rpnl, fee = o.fee, funding = o.funding, ecost = o.ecost,
    cost = o.cost, side = o.side, cts = cts, uts = ctx.ts }
end

-- Writes one account's pending changes; returns the closed days it changed.
local function fStatsWrite(ctx, acct, s)
  local key, dailyKey, daysKey = futuresStatsKey(ctx.P, acct), futuresDailyKey(ctx.P, acct), futuresDaysKey(ctx.P, acct)
  for field, v in pairs(s.f) do
    if v ~= 0 then redis.call('HINCRBY', key, field, fmt(v)) end
  end
  local days = 0
  for day, v in pairs(s.a) do
    if v ~= 0 then
      local field = 'a:' .. fmt(day)
      local now = redis.call('HINCRBY', daysKey, field, fmt(v))
      local before = now - v
      if now <= 0 then redis.call('HDEL', daysKey, field) end
      if before <= 0 and now > 0 then days = days + 1 elseif before > 0 and now <= 0 then days = days - 1 end
    end
  end
  if days ~= 0 then redis.call('HINCRBY', key, 'days', fmt(days)) end
  local changed = {}
  for day, n in pairs(s.dc) do
    local d = fmt(day)
    local v = s.d[day]
    if v ~= 0 then redis.call('HINCRBY', dailyKey, d, fmt(v)) end
    if n ~= 0 and redis.call('HINCRBY', daysKey, 'c:' .. d, fmt(n)) <= 0 then
      redis.call('HDEL', daysKey, 'c:' .. d)
      redis.call('HDEL', dailyKey, d)
    end
    if v ~= 0 or n ~= 0 then changed[#changed + 1] = { day = day, v = v } end
  end
  -- readers keep the decoded series while its version stands (src/futures/futures-account-stats.ts)
  if #changed > 0 then redis.call('HINCRBY', key, 'dver', 1) end
  return changed
end

-- Writes every account's pending changes, then re-scores the ranked accounts among them.
local function fStatsCommit(ctx)
  if not ctx.statsOrder then return end
  for _, acct in ipairs(ctx.statsOrder) do
    local changed = fStatsWrite(ctx, acct, ctx.stats[acct])
    fRankAfter(ctx.P, acct, changed)
  end
  ctx.stats, ctx.statsOrder = nil, nil
end

-- Rebuilds one account's aggregates from its orders: each opening order's part as it stands now,
-- summed, then its rankings if it is ranked. O(orders of the account); commands after it go on from
-- exactly this sum. Returns how many orders it read.
local function fStatsRebuild(P, acct, ts)
  local ctx = { P = P, ts = ts }
  -- the account's orders: its finished and open indices (includes/futures/accountIndex)
  local ids = redis.call('ZUNION', '2', futuresAccountOrdersKey(P, acct), futuresAccountOpenKey(P, acct), 'AGGREGATE', 'MIN')
  for _, id in ipairs(ids) do
    local h = fReadRecord(orderKey(P, id))
    if h and h.role == 'open' then
      fStatsApply(ctx, acct, h.pair, fStatsPart(h.status, fStatsNum(h.filled), fStatsNum(h.rpnl), fStatsNum(h.fee),
        fStatsNum(h.funding), fStatsNum(h.ecost), fStatsNum(h.cost), h.side, h.cts or ts, h.uts or ts), 1)
    end
  end
  local key = futuresStatsKey(P, acct)
  local version = tonumber(redis.call('HGET', key, 'dver') or '0')
  redis.call('DEL', key, futuresDailyKey(P, acct), futuresDaysKey(P, acct))
  if ctx.stats then fStatsWrite(ctx, acct, ctx.stats[acct]) end
  -- past every version a reader may hold: the rebuilt series is never taken for a cached one
  redis.call('HSET', key, 'dver', version + 1)
  fRankAfter(P, acct, nil)
  return #ids
end

-- Makes an existing account tracked: sets the flag and rebuilds its aggregates, in the caller's
-- step. True if it did; false if it was tracked already (its aggregates are exact) or there is no
-- such account.
local function fStatsTrack(P, acct, ts)
  local key = futuresAccountKey(P, acct)
  local a = redis.call('HMGET', key, 'id', 'stats')
  if not a[1] or a[2] == '1' then return false end
  redis.call('HSET', key, 'stats', '1')
  fStatsRebuild(P, acct, ts)
  return true
end
