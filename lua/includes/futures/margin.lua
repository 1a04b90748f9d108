--[[
  Futures money arithmetic, all in minor units of the pair's quote currency. Notional of `q` lots
  at `t` ticks: t * q * ns, where ns = contractValue x quote minor units per tick x lot (ctx.fut.ns).
  Margin = floor(notional / leverage) (locked collateral, so rounding down is safe and splits of a
  fill never need more than the whole); fees round up (the exchange collects them).
  Liquidation and bankruptcy prices are exact integers (docs/futures.md): every product stays below
  2^53, the one that could not (a remainder x 1e6) goes through wideMulDiv when it would.
]]
--- @include "includes/mulDiv"
--- @include "includes/safeInt"

local function fNotional(ctx, ticks, lots)
  return ticks * lots * ctx.fut.ns
end

-- The margin of notional n (>= 0) at leverage lev: floor(n / lev), written (n - n % lev) / lev: `%`
-- is n - floor(n / lev) * lev computed in C, so the quotient is the same exact multiple, without the
-- global lookup and call of math.floor (~600 instructions; a fill computes it twice per side).
local function fMargin(n, lev)
  return (n - n % lev) / lev
end

-- What a resting opening order holds for `lots` at `ticks`: margin, taker fee, one unit per lot.
-- The unit per lot covers the rounding of any split into fills, so a maker never needs more than it holds.
local function fReserve(ctx, ticks, lots, lev)
  if lots <= 0 then return 0 end
  local n = fNotional(ctx, ticks, lots)
  return fMargin(n, lev) + mulDivCeil(n, ctx.fut.taker, 1000000) + lots
end

-- What an opening order still reserves once q more of its lots fill: none for a market order or
-- once all of them have (no fReserve call then).
local function fReserveAfter(ctx, o, q)
  if o.remaining <= q or not o.price or o.isMarket then return 0 end
  return fReserve(ctx, o.price, o.remaining - q, o.lev)
end

-- floor(a / c) and a - c * floor(a / c) for integers a (any sign) and c > 0, corrected for the
-- double division's last bit. `%` is that remainder computed in C (a - floor(a / c) * c), so no
-- math.floor call; a - r is then an exact multiple of c, and its quotient exact.
local function divMod(a, c)
  local r = a % c
  local q = (a - r) / c
  while r < 0 do q = q - 1; r = r + c end
  while r >= c do q = q + 1; r = r - c end
  return q, r
end

-- floor(a * b / c) and its remainder for 0 <= a < c < 2^53 / 3 and 0 <= b < 2^31, by doubling
-- (a x b may pass 2^53; no intermediate here does).
local function wideMulDiv(a, b, c)
  local q, r = 0, 0
  local bit = 1
  while bit * 2 <= b do bit = bit * 2 end
  while bit >= 1 do
    q, r = q * 2, r * 2
    if r >= c then q, r = q + 1, r - c end
    if b >= bit then
      b = b - bit
      r = r + a
      if r >= c then q, r = q + 1, r - c end
    end
    bit = bit / 2
  end
  return q, r
end

-- floor(r x 1e6 / c) and its remainder for 0 <= r < c < 2^53 / 3, exactly. Directly when r x 1e6 <
-- 2^52 (the product is exact, and so is every step of divMod: q x c <= r x 1e6 + c < 2^53), which
-- is any position short of about 4.5e9 minor units of notional per tick; by doubling otherwise.
-- A double product at or past 2^52 never rounds below it, so the test itself is exact.
local function fFracMillionths(r, c)
  local x = r * 1000000
  if x < 4503599627370496 then return divMod(x, c) end
  return wideMulDiv(r, 1000000, c)
end

-- The position's price parts: C = notional of one tick (openQty x ns), A = what the position is worth
-- at the price where its margin is used up, times C (cost x ns -/+ current margin). nil when out of range.
local function fPriceParts(ctx, o)
  local ns, m = ctx.fut.ns, o.margin
  local c, a = o.openQty * ns, o.cost * ns
  local am = a + m
  if not isSafe(am) or c * 3 > MAX_SAFE then return nil end
  -- a short's is that sum
  if o.side == 'buy' then return a - m, c end
  return am, c
end

-- Bankruptcy price in ticks (the current margin exactly used up), rounded toward the exchange's
-- safety: a long's up, a short's down. A long that cannot go bankrupt has 0. Errors when inexact.
local function fBankruptcyPrice(ctx, o)
  local a, c = fPriceParts(ctx, o)
  if not a then error('LIQ_PRICE_OUT_OF_RANGE: position ' .. o.id .. ' is too large for exact prices') end
  local q, r = divMod(a, c)
  if o.side == 'buy' then
    if r > 0 then q = q + 1 end
    return math.max(0, q)
  end
  return q
end

-- The liquidation price's factor 1e6 / (1e6 -/+ mmr) (mmr in ppm) in lowest terms: its numerator
-- and a long's and a short's denominators. g = gcd(1e6, mmr) divides all three (mmr 0.5 %: 200/199
-- and 200/201), so the price's products stay small. The market's parameters (ctx.fut,
-- includes/futures/context futuresMarketFor) carry them.
local function fLiqFactor(mmr)
  local g, b = 1000000, mmr
  while b > 0 do g, b = b, g % b end
  return 1000000 / g, (1000000 - mmr) / g, (1000000 + mmr) / g
end

-- Liquidation price in ticks (docs/futures.md): where margin + pnl = maintenance (notional x mmr).
-- long: (cost x ns - margin) / (openQty x ns x (1 - mmr)), rounded up (triggers no later than due);
-- short: (cost x ns + margin) / (openQty x ns x (1 + mmr)), rounded down. From the CURRENT margin.
local function fLiqPrice(ctx, o)
  local a, c = fPriceParts(ctx, o)
  if not a then error('LIQ_PRICE_OUT_OF_RANGE: position ' .. o.id .. ' is too large for exact prices') end
  if a <= 0 then return 0 end
  local f = ctx.fut
  local long = o.side == 'buy'
  -- a x 1e6 / (c x k) is a x num / (c x den) with the factor's terms: in one division when both
  -- products are below 2^53 (a below about 4.5e13 minor units at mmr 0.5 %; the bench's: a ~4.5e9,
  -- c 1e4) and a / c is short of the far short's bound below (a < c x 9007199255: q1 x 1e6 <= MAX_SAFE;
  -- a product at or past 2^53 never rounds below it, so the tests are exact). Then the products are
  -- exact, and so is `%`: for integers below 2^53 the double quotient never rounds onto the next
  -- integer, so x % d is the remainder in [0, d) and (x - r) / d the floor, the steps' exact price.
  local x = a * f.liqNum
  local d
  if long then d = c * f.liqDenL else d = c * f.liqDenS end
  if x < 9007199254740992 and d < 9007199254740992 and a < c * 9007199255 then
    local r = x % d
    if r > 0 and long then return (x - r) / d + 1 end
    return (x - r) / d
  end
  -- otherwise in three steps: a / c, its remainder's millionths, the quotient by k
  local k = 1000000 - f.mmr
  if not long then k = 1000000 + f.mmr end
  local q1, r1 = divMod(a, c)
  -- only a short whose margin grew far past its notional gets here (a long's q1 is at most its entry,
  -- which creation keeps below 2^53 / 2e6): a price below the true one, far from any mark, is safe
  if q1 * 1000000 > MAX_SAFE then return math.floor(q1 / k * 999999) end
  -- a x 1e6 / c = w + frac, w = q1 x 1e6 + floor(r1 x 1e6 / c), frac > 0 when rv > 0
  local v, rv = fFracMillionths(r1, c)
  local w = q1 * 1000000 + v
  local p, rp = divMod(w, k)
  if long then
    if rp > 0 or rv > 0 then p = p + 1 end
    return p
  end
  return p
end

-- Average entry in ticks (a double: used for comparisons only).
local function fEntry(o)
  if o.openQty > 0 then return o.cost / o.openQty end
  return o.price
end
