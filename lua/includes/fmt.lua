--[[
  Integer to decimal string. Lua numbers are doubles: `tostring` and `..` print large integers in
  exponent form on Redis 7.0, and a number returned to Redis is truncated, so every integer that
  leaves a script goes through here.
]]
--- @include "includes/globals"

local function fmt(n)
  if n == 0 then return '0' end -- the commonest value (fresh orders, fee-free fills) skips sprintf
  return (TFORMAT or formatOf())('%d', n)
end

-- the zeros before an integer of n digits (ZPAD[n])
local ZPAD = { '000000000000000', '00000000000000', '0000000000000', '000000000000', '00000000000',
  '0000000000', '000000000', '00000000', '0000000', '000000', '00000', '0000', '000', '00', '0', '' }

-- Non-negative integer n zero-padded to 16 digits (ids as sorted-set members: text order is id
-- order). `text`: n as fmt printed it, when the caller has it: padded by one concatenation.
local function fmt016(n, text)
  local z = text and ZPAD[#text]
  if z then return z .. text end
  return (TFORMAT or formatOf())('%016d', n)
end
