--[[
  Exact-integer guard: doubles hold integers exactly only up to 2^53 - 1.
]]
local MAX_SAFE = 9007199254740991

local function isSafe(n)
  return n == n and n >= -MAX_SAFE and n <= MAX_SAFE
end
