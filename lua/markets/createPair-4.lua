--[[
  Registers a market once. Its parameters never change afterwards: prices and amounts are stored
  as integers in the pair's digits, so changing digits would change every stored value. A new
  market is announced on the markets stream, so gateways and dispatchers pick it up at once.

  Input:
    KEYS[1] set of pair codes of this kind   KEYS[2] the pair hash   KEYS[3] pair id counter
    KEYS[4] markets stream (entries: kind, code, id)
    ARGV[1] pair code   ARGV[2..] field, value pairs of the pair hash (`kind` among them)
  Output:
    {'OK', id} created; {'EXISTS', id} already registered (left unchanged)
]]
local rcall = redis.call
if rcall('SADD', KEYS[1], ARGV[1]) == 0 then
  return { 'EXISTS', rcall('HGET', KEYS[2], 'id') }
end
local id = string.format('%d', rcall('INCR', KEYS[3]))
rcall('HSET', KEYS[2], 'id', id, unpack(ARGV, 2))
rcall('XADD', KEYS[4], 'MAXLEN', '~', 1000, '*', 'kind', rcall('HGET', KEYS[2], 'kind'), 'code', ARGV[1], 'id', id)
return { 'OK', id }
