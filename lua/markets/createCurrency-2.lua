--[[
  Registers a currency once.

  Input:
    KEYS[1] set of currency codes   KEYS[2] the currency hash
    ARGV[1] code   ARGV[2] name   ARGV[3] decimals
  Output:
    {'OK'} created; {'EXISTS'} already registered (left unchanged)
]]
local rcall = redis.call
if rcall('SADD', KEYS[1], ARGV[1]) == 0 then return { 'EXISTS' } end
rcall('HSET', KEYS[2], 'code', ARGV[1], 'name', ARGV[2], 'decimals', ARGV[3])
return { 'OK' }
