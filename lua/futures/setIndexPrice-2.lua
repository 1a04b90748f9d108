--[[
  Records one index source's price of a futures market (an operator's or an oracle's push, docs/futures.md)
  with its time, and announces it on the market stream so the risk worker re-reads the mark. The
  index itself is the median of the fresh sources; the mark worker computes it
  (src/futures/prices/futures-price.service.ts) and stores it with the mark (refreshFuturesMark).

  Input:
    KEYS[1] the market's index sources (hash: source -> "ticks:ms")   KEYS[2] the futures market event stream
    ARGV[1] source name   ARGV[2] price, ticks   ARGV[3] timestamp, ms   ARGV[4] stream MAXLEN
  Output:
    {'OK'}
  Events: index {src, p}.
]]
local rcall = redis.call
rcall('HSET', KEYS[1], ARGV[1], ARGV[2] .. ':' .. ARGV[3])
rcall('XADD', KEYS[2], 'MAXLEN', '~', ARGV[4], '*', 'ts', ARGV[3], 'ev',
  cjson.encode({ { e = 'index', src = ARGV[1], p = ARGV[2] } }))
return { 'OK' }
