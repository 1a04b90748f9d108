--[[
  a * b / c for non-negative integers without passing 2^53 on the way, given b <= c <= 1e6
  (fee rates are parts per million). Splits a = q*c + r so the products stay small.
  The exchange rounds what it collects up (mulDivCeil) and what it pays out down (mulDivFloor).
]]
local function mulDivCeil(a, b, c)
  local q = math.floor(a / c)
  local r = a - q * c
  return q * b + math.ceil(r * b / c)
end

local function mulDivFloor(a, b, c)
  local q = math.floor(a / c)
  local r = a - q * c
  return q * b + math.floor(r * b / c)
end
