--[[
  Sum of two non-negative integers held as decimal strings, exact at any size: candle volumes add
  up price x quantity products that pass 2^53, where Lua's doubles stop being exact.
]]
local function addDecimal(a, b)
  local out, carry = {}, 0
  local i, j = #a, #b
  while i > 0 or j > 0 or carry > 0 do
    local s = carry
    if i > 0 then s = s + string.byte(a, i) - 48; i = i - 1 end
    if j > 0 then s = s + string.byte(b, j) - 48; j = j - 1 end
    out[#out + 1] = string.char(48 + s % 10)
    carry = (s - s % 10) / 10
  end
  local n = #out
  for k = 1, math.floor(n / 2) do out[k], out[n - k + 1] = out[n - k + 1], out[k] end
  local r = table.concat(out):gsub('^0+', '')
  if r == '' then return '0' end
  return r
end
