--[[
  Engine key names that only a running script can know: the order, wallet and account of a maker
  met in the book, a position found by a sweep, a new order's hash (its id comes from the counter).
  Every key a caller can know arrives in KEYS instead (the cluster contract, docs/architecture.md#keys-and-scale-out). Mirrors
  src/platform/redis/keys.ts, which test/integration/keys.test.ts checks; P is the engine prefix
  passed as ARGV[1] (`ex:{e0}:`), so these keys share the caller's slot.
]]
local function orderKey(P, id)
  return P .. 'order:' .. id
end

local function walletAvailKey(P, userId)
  return P .. 'wallet:' .. userId .. ':avail'
end

local function walletRsvKey(P, userId)
  return P .. 'wallet:' .. userId .. ':rsv'
end

local function userOpenKey(P, kind, pair, userId)
  return P .. 'uopen:' .. kind .. ':' .. pair .. ':' .. userId
end

-- A futures account's hash, and the index of its opening orders that are Created or InPosition
-- (a maker's position closes, a sweep closes a position), built here when the script meets an
-- account it was not given in KEYS.
local function futuresAccountKey(P, id)
  return P .. 'facct:' .. id
end

local function futuresAccountOpenKey(P, id)
  return P .. 'facctopen:' .. id
end

-- A futures account's opening orders that have ended: with its open index, all of them
-- (includes/futures/accountIndex; the rebuild of its aggregates reads both).
local function futuresAccountOrdersKey(P, id)
  return P .. 'facctorders:' .. id
end

-- A futures account's trading aggregates and its closed-positions daily series
-- (includes/futures/accountStats), kept for the accounts copy trading reads (field `stats` of the
-- account hash) by every command that writes one of their orders.
local function futuresStatsKey(P, acct)
  return P .. 'fstats:' .. acct
end

local function futuresDailyKey(P, acct)
  return P .. 'fdaily:' .. acct
end

local function futuresDaysKey(P, acct)
  return P .. 'fdays:' .. acct
end

-- The ranked accounts (acct -> "<base>:<decimals>") and their ranking by `by` (roi, pnl, days, dd).
local function futuresRankKey(P, by)
  if by then return P .. 'frank:' .. by end
  return P .. 'frank'
end

-- A transfer's record on the sending shard (lua/wallet/sendTransfer), built here by a script whose
-- transfer id arrives in ARGV (a copy payment: its id is random per attempt and must not change
-- the step's KEYS, which name the step's operation record).
local function transferKey(P, id)
  return P .. 'xfer:' .. id
end
