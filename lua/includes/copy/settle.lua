--[[
  Copy-trading money rules (docs/copy-trading.md), shared by the lua/copy scripts. Money in
  minor units; rates in parts per million of 1 (percent x 10^4). The subscription's ledger hash:
    netIn       what the slave put in, net of what came back (start, margin changes, finish)
    feeTs       ms up to which the management fee has been accrued
    owedFee     fee accrued, not yet paid          commission  fee paid to the master's owner
    hwm         high-water mark of realized profit owedShare   profit share due, not yet paid
    shared      profit share paid
  Realized profit = balance + locked - netIn + commission + shared: the account's cash (margins at
  cost, without unrealized pnl) less what the slave put in, before what was paid to the master.
  Profit share due in total = floor(hwm x share), so it is charged once however often it is settled;
  what the free balance cannot pay now stays owed and is paid at the next settlement. What is paid
  goes to the master owner's wallet on this shard, or, when the owner's home is another shard, out
  as a payment transfer to that home (copyPayee, copyPay; docs/copy-trading.md, "Payments across homes").
]]
--- @include "includes/mulDiv"
--- @include "includes/fmt"
--- @include "includes/keys"
--- @include "includes/wallet/transferOut"

local COPY_YEAR_S = 31536000
local COPY_PPM = 1000000

local function copyNum(v)
  return tonumber(v or '0') or 0
end

--- Accrues the management fee of `margin` from feeTs to `now` (whole seconds), at feePpm a year.
local function copyAccrueFee(ledgerKey, margin, feePpm, now)
  local feeTs = tonumber(redis.call('HGET', ledgerKey, 'feeTs') or '') or now
  local secs = math.floor((now - feeTs) / 1000)
  if secs <= 0 then return 0 end
  local annual = mulDivFloor(margin, math.min(feePpm, COPY_PPM), COPY_PPM)
  local years = math.floor(secs / COPY_YEAR_S)
  local fee = annual * years + mulDivFloor(annual, secs - years * COPY_YEAR_S, COPY_YEAR_S)
  redis.call('HSET', ledgerKey, 'feeTs', fmt(feeTs + secs * 1000))
  if fee > 0 then redis.call('HINCRBY', ledgerKey, 'owedFee', fmt(fee)) end
  return fee
end

local function copyRealized(acctKey, ledgerKey)
  local a = redis.call('HMGET', acctKey, 'balance', 'locked')
  local l = redis.call('HMGET', ledgerKey, 'netIn', 'commission', 'shared')
  return copyNum(a[1]) + copyNum(a[2]) - copyNum(l[1]) + copyNum(l[2]) + copyNum(l[3])
end

--- Moves the high-water mark up to the realized profit and owes the share of the rise.
local function copyAccrueShare(acctKey, ledgerKey, sharePpm)
  local realized = copyRealized(acctKey, ledgerKey)
  local hwm = copyNum(redis.call('HGET', ledgerKey, 'hwm'))
  if realized <= hwm then return 0 end
  local ppm = math.min(sharePpm, COPY_PPM)
  local due = mulDivFloor(realized, ppm, COPY_PPM) - mulDivFloor(math.max(hwm, 0), ppm, COPY_PPM)
  redis.call('HSET', ledgerKey, 'hwm', fmt(realized))
  if due > 0 then redis.call('HINCRBY', ledgerKey, 'owedShare', fmt(due)) end
  return due
end

--- Where copyPay sends what it pays (docs/copy-trading.md, "Payments"): the master owner's wallet
--- here when the owner's home is this shard (`id` ''), else a payment transfer to the owner's home
--- (includes/wallet/transferOut) under `id`, random per attempt, its record built from prefix P.
--- `keys`, `argv`: the script's KEYS and ARGV. KEYS[w]: the owner's wallet here; KEYS from `k`: this shard's outbox, the owner's pending
--- transfers from here, transfer versions. ARGV from `a`: P, payment id, owner's user id, this
--- shard, owner's home.
local function copyPayee(keys, argv, w, k, a, payer, ts)
  return { wallet = keys[w], outbox = keys[k], pending = keys[k + 1], versions = keys[k + 2], P = argv[a],
    id = argv[a + 1], user = argv[a + 2], from = argv[a + 3], to = argv[a + 4], payer = payer, ts = ts }
end

--- The owner's wallet event for copyUserEvents: paid here, the wallet here moved; paid by a
--- transfer to another shard (copyPay sets `sent`), the money is in flight to the owner's home
--- (its credit lands there), which a sum over shards counts from now on.
local function copyPayeeEventUser(payee)
  return payee
end

--- Pays what is owed (fee first) from the account's free balance to the payee (copyPayee). Returns
--- fee, share and the payment's transfer id ('' when nothing left this shard).
local function copyPay(acctKey, ledgerKey, cur, payee)
  local free = math.max(copyNum(redis.call('HGET', acctKey, 'balance')), 0)
  local l = redis.call('HMGET', ledgerKey, 'owedFee', 'owedShare')
  local fee = math.min(copyNum(l[1]), free)
  local share = math.min(copyNum(l[2]), free - fee)
  local sent = ''
  if fee + share > 0 then
    redis.call('HINCRBY', acctKey, 'balance', fmt(-(fee + share)))
    if payee.id == '' then
      redis.call('HINCRBY', payee.wallet, cur, fmt(fee + share))
    else
      transferOut(transferKey(payee.P, payee.id), payee.outbox, payee.pending, payee.versions, {
        id = payee.id, user = payee.user, cur = cur, amount = fmt(fee + share), from = payee.from, to = payee.to,
        ts = payee.ts, kind = 'payment', payer = payee.payer })
      redis.call('HSET', transferKey(payee.P, payee.id), 'fee', fmt(fee), 'share', fmt(share))
      sent = payee.id
      payee.sent = fmt(fee + share)
    end
  end
  if fee > 0 then
    redis.call('HINCRBY', ledgerKey, 'commission', fmt(fee))
    redis.call('HINCRBY', ledgerKey, 'owedFee', fmt(-fee))
  end
  if share > 0 then
    redis.call('HINCRBY', ledgerKey, 'shared', fmt(share))
    redis.call('HINCRBY', ledgerKey, 'owedShare', fmt(-share))
  end
  return fee, share, sent
end

--- Moves `amount` of free balance from one account to another and books it in netIn (sign `dir`).
local function copyMove(srcKey, dstKey, ledgerKey, amount, dir)
  if amount <= 0 then return end
  redis.call('HINCRBY', srcKey, 'balance', fmt(-amount))
  redis.call('HINCRBY', dstKey, 'balance', fmt(amount))
  redis.call('HINCRBY', ledgerKey, 'netIn', fmt(dir * amount))
end
