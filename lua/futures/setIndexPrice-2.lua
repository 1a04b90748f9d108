--[[
  Sets the index price of a futures market (admin; used where no spot market gives one) and
  announces it on the market stream, so the liquidation worker re-checks the market.

  Input:
    KEYS[1] the market's index price   KEYS[2] the futures market event stream
    ARGV[1] price, ticks   ARGV[2] timestamp, ms   ARGV[3] stream MAXLEN
  Output:
    {'OK'}
  Events: index {p}.
]]
local rcall = redis.call
rcall('SET', KEYS[1], ARGV[1])
rcall('XADD', KEYS[2], 'MAXLEN', '~', ARGV[3], '*', 'ts', ARGV[2], 'ev',
  cjson.encode({ { e = 'index', p = ARGV[1] } }))
return { 'OK' }
