--[[
  redis.call in an upvalue, taken at the first call: a library function reaches a global through
  the sandbox's metatable (~270 instructions a lookup), and the library's top level sees the load
  API's `redis`, not the one commands run with. Hot paths write `local call = RCALL or rcallOf()`.
]]
local RCALL

local function rcallOf()
  RCALL = redis.call
  return RCALL
end
