--[[
  a * b / c for integers a (any sign), b >= 0 and 0 < c < 2^52 with (a mod c) * b < 2^53 (fee
  rates are parts per million: b <= c <= 1e6). Splits a = q*c + r so the products stay small.
  The exchange rounds what it collects up (mulDivCeil) and what it pays out down (mulDivFloor).
  Quotients by `%` (as includes/futures/margin's fMargin), not math.floor / math.ceil (a global's
  lookup and a C call each): x % c is x - floor(x / c) * c computed in C, and for an integer
  |x| < 2^53 the double x / c never rounds onto an integer it is not, so that floor is exact, x % c
  the exact remainder in [0, c) and (x - x % c) / c the exact quotient (a - r stays within 2^53 for
  -2^52 < a < 2^53). Outside that (no caller gets there) the double division, as it always was.
]]
local function mulDivCeil(a, b, c)
  local r = a % c
  local x = r * b
  if x >= 9007199254740992 or a >= 9007199254740992 or a <= -4503599627370496 then
    return math.floor(a / c) * b + math.ceil(x / c)
  end
  local f = x % c
  if f > 0 then return (a - r) / c * b + ((x - f) / c + 1) end
  return (a - r) / c * b + (x - f) / c
end

local function mulDivFloor(a, b, c)
  local r = a % c
  local x = r * b
  if x >= 9007199254740992 or a >= 9007199254740992 or a <= -4503599627370496 then
    return math.floor(a / c) * b + math.floor(x / c)
  end
  return (a - r) / c * b + (x - x % c) / c
end
