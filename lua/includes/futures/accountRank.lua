--[[
  Rankings of futures accounts (the copy-trading leaderboard ranks its open masters by these): an
  account listed in the `frank` hash with its base equity is scored, whenever its aggregates change
  (includes/futures/accountStats), in four sorted sets, each read lowest first (the best first: the
  scores of roi, pnl and days are negated) with members the account ids padded (fRankMember), so
  equal scores read in numeric id order:
    roi   −net / base × 100      pnl   −net in currency units      days   −trading days
    dd    the deepest fall of its daily equity from a running peak, % of the peak: base, then + the
          net of each day's closed positions in day order (open positions are left to the read)
  and `all`, pnl again, which keeps an account taken out of the rankings (rankFuturesAccount) with
  its last score: a place among every account ever ranked.
  The drawdown is kept incrementally (fields dd, ddDay, ddPeak, ddEq of fstats): a command changes
  today's day, the last of the series, so ddPeak (the peak before ddDay) and dd (the deepest fall
  before it) stay; a change to an earlier day rebuilds the state from the daily series, O(days).
]]
--- @include "includes/keys"
--- @include "includes/fmt"

local function fRankNum(v)
  return string.format('%.17g', v)
end

-- An id as a ranking member (src/platform/redis/ranking.ts rankMember): up to 12 digits padded to
-- 12, as always; a longer id (a random one of several shards, src/domain/shard-ids.ts) ':' and 16
-- digits. ':' sorts after every digit, so members of equal score read in numeric id order.
local function fRankMember(acct)
  local id = tostring(acct)
  if #id <= 12 then return string.format('%012d', tonumber(id)) end
  return ':' .. string.rep('0', 16 - #id) .. id
end

local function fRankFall(peak, eq)
  if peak > 0 then return (peak - eq) / peak end
  return 0
end

-- The drawdown state rebuilt from the account's whole daily series.
local function fRankReplay(P, acct, base)
  local raw = redis.call('HGETALL', futuresDailyKey(P, acct))
  local days, val = {}, {}
  for i = 1, #raw, 2 do
    local d = tonumber(raw[i])
    days[#days + 1] = d
    val[d] = tonumber(raw[i + 1])
  end
  table.sort(days)
  local peak, eq, worst, last = base, base, 0, -1
  for i, d in ipairs(days) do
    if i == #days then
      last = d
    else
      eq = eq + val[d]
      if eq > peak then peak = eq end
      worst = math.max(worst, fRankFall(peak, eq))
    end
  end
  if last >= 0 then eq = eq + val[last] end
  return { day = last, peak = peak, eq = eq, worst = worst }
end

-- Re-scores one account if it is ranked; `changed` = {{day, v}} the closed days this command moved,
-- or nil to rebuild the drawdown from the series.
local function fRankAfter(P, acct, changed)
  local listing = redis.call('HGET', futuresRankKey(P), acct)
  if not listing then return end
  local sep = string.find(listing, ':', 1, true)
  local base, decimals = tonumber(string.sub(listing, 1, sep - 1)), tonumber(string.sub(listing, sep + 1))
  local key = futuresStatsKey(P, acct)
  local f = redis.call('HMGET', key, 'net', 'days', 'dd', 'ddDay', 'ddPeak', 'ddEq')
  local st
  if changed and f[4] then
    st = { worst = tonumber(f[3]), day = tonumber(f[4]), peak = tonumber(f[5]), eq = tonumber(f[6]) }
    table.sort(changed, function(a, b) return a.day < b.day end)
    for _, c in ipairs(changed) do
      if c.day < st.day then
        st = nil
        break
      elseif c.day > st.day then
        if st.day >= 0 then
          if st.eq > st.peak then st.peak = st.eq end
          st.worst = math.max(st.worst, fRankFall(st.peak, st.eq))
        end
        st.day = c.day
      end
      st.eq = st.eq + c.v
    end
  end
  if not st then st = fRankReplay(P, acct, base) end
  redis.call('HSET', key, 'dd', fRankNum(st.worst), 'ddDay', fmt(st.day), 'ddPeak', fmt(st.peak), 'ddEq', fmt(st.eq))
  local net, peak = tonumber(f[1] or '0'), math.max(st.peak, st.eq)
  local roi = 0
  if base > 0 then roi = net / base * 100 end
  local member = fRankMember(acct)
  redis.call('ZADD', futuresRankKey(P, 'roi'), fRankNum(-roi), member)
  redis.call('ZADD', futuresRankKey(P, 'pnl'), fRankNum(-net / 10 ^ decimals), member)
  redis.call('ZADD', futuresRankKey(P, 'all'), fRankNum(-net / 10 ^ decimals), member)
  redis.call('ZADD', futuresRankKey(P, 'days'), fRankNum(-tonumber(f[2] or '0')), member)
  redis.call('ZADD', futuresRankKey(P, 'dd'), fRankNum(math.max(st.worst, fRankFall(peak, st.eq)) * 100), member)
end
