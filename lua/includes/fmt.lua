--[[
  Integer to decimal string. Lua numbers are doubles: `tostring` and `..` print large integers in
  exponent form on Redis 7.0, and a number returned to Redis is truncated, so every integer that
  leaves a script goes through here.
]]
-- string.format, taken at the first call: the library's top level cannot reach `string`, and each
-- lookup of a global costs a function ~270 instructions (two table lookups through the sandbox)
local sformat

local function fmt(n)
  if n == 0 then return '0' end -- the commonest value (fresh orders, fee-free fills) skips sprintf
  local f = sformat
  if not f then
    f = string.format
    sformat = f
  end
  return f('%d', n)
end
