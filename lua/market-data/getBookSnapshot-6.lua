--[[
  The aggregated book of one market at one instant, with the book sequence and the stream entry it
  belongs to, so a reader can serve the snapshot and then apply the stream from exactly there.

  Input:
    KEYS[1] level prices bids       KEYS[4] level quantities asks
    KEYS[2] level prices asks       KEYS[5] book sequence
    KEYS[3] level quantities bids   KEYS[6] market event stream
    ARGV[1] depth, levels per side (0 for all)
  Output:
    {seq, lastStreamId, {price, qty, ...} bids best first, {price, qty, ...} asks best first}
    prices in ticks, quantities in lots, as decimal strings
]]
local rcall = redis.call
local depth = tonumber(ARGV[1])
local stop = -1
if depth > 0 then stop = depth - 1 end

local function side(levelsKey, qtyKey)
  local prices = rcall('ZRANGE', levelsKey, 0, stop)
  local out = {}
  if #prices == 0 then return out end
  local qtys = rcall('HMGET', qtyKey, unpack(prices))
  for i, p in ipairs(prices) do
    out[#out + 1] = p
    out[#out + 1] = qtys[i]
  end
  return out
end

local seq = rcall('GET', KEYS[5]) or '0'
local last = rcall('XREVRANGE', KEYS[6], '+', '-', 'COUNT', 1)
local lastId = '0-0'
if #last > 0 then lastId = last[1][1] end
return { seq, lastId, side(KEYS[1], KEYS[3]), side(KEYS[2], KEYS[4]) }
