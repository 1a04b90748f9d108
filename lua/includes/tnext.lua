--[[
  `next` and `unpack` in upvalues, taken at the first call, as includes/rcall takes redis.call: a
  library function reaches a global through the sandbox's metatable (~270 instructions a lookup),
  and `for k, v in pairs(t)` is that lookup and a C call more than `for k, v in nx, t`. Hot paths
  write `local nx = TNEXT or tnextOf()`, `local unpackAll = TUNPACK or tunpackOf()`.
]]
local TNEXT
local TUNPACK

local function tnextOf()
  TNEXT = next
  return TNEXT
end

local function tunpackOf()
  TUNPACK = unpack
  return TUNPACK
end

-- Empties `t` in place: its slots stay, so refilling it does not rehash it as a new table grows.
local function emptyTable(t)
  local nx = TNEXT or tnextOf()
  local k = nx(t)
  while k ~= nil do
    t[k] = nil
    k = nx(t, k)
  end
end
