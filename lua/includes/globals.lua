--[[
  Library globals in upvalues, each taken at its first call, as includes/rcall takes redis.call: a
  library function reaches a global through the sandbox's metatable (~270 instructions a lookup),
  and the library's top level cannot reach them at all. Hot paths write `local nx = TNEXT or
  tnextOf()` (then `for k, v in nx, t`: `pairs` is a lookup and a C call more), and likewise
  TUNPACK / tunpackOf, TCJSON / cjsonOf, TPCALL / pcallOf, TFORMAT / formatOf (string.format),
  TMATCH / matchOf (string.match).
]]
local TNEXT
local TUNPACK
local TCJSON
local TPCALL
local TFORMAT
local TMATCH

local function tnextOf()
  TNEXT = next
  return TNEXT
end

local function tunpackOf()
  TUNPACK = unpack
  return TUNPACK
end

local function cjsonOf()
  TCJSON = cjson
  return TCJSON
end

local function pcallOf()
  TPCALL = pcall
  return TPCALL
end

local function formatOf()
  TFORMAT = string.format
  return TFORMAT
end

local function matchOf()
  TMATCH = string.match
  return TMATCH
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
