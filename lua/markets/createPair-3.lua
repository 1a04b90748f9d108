--[[
  Registers a market once. Its parameters never change afterwards: prices and amounts are stored
  as integers in the pair's digits, so changing digits would change every stored value.

  Input:
    KEYS[1] set of pair codes of this kind   KEYS[2] the pair hash   KEYS[3] pair id counter
    ARGV[1] pair code   ARGV[2..] field, value pairs of the pair hash
  Output:
    {'OK', id} created; {'EXISTS', id} already registered (left unchanged)
]]
local rcall = redis.call
if rcall('SADD', KEYS[1], ARGV[1]) == 0 then
  return { 'EXISTS', rcall('HGET', KEYS[2], 'id') }
end
local id = rcall('INCR', KEYS[3])
rcall('HSET', KEYS[2], 'id', string.format('%d', id), unpack(ARGV, 2))
return { 'OK', string.format('%d', id) }
