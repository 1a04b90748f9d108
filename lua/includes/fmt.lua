--[[
  Integer to decimal string. Lua numbers are doubles: `tostring` and `..` print large integers in
  exponent form on Redis 7.0, and a number returned to Redis is truncated, so every integer that
  leaves a script goes through here.
]]
local function fmt(n)
  if n == 0 then return '0' end -- the commonest value (fresh orders, fee-free fills) skips sprintf
  return string.format('%d', n)
end
