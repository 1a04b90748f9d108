--[[
  Makes a market's shard ready to run it (ENGINE_SHARDS > 1, a market off shard 0): a copy of the
  pair hash under the shard's tag, which the shard's scripts read (a cancel reads the pair's
  currencies), and the shard's id counters started at the shard's base (src/domain/shard-ids.ts),
  so its order and trade ids never meet another shard's. Idempotent: the pair never changes and a
  counter already started is left as it is; the store runs it after every createPair of such a
  market, so a crash between the two is mended by the next attempt or the next start's seeding.

  Input:
    KEYS[1] the pair hash on the market's shard   KEYS[2] the shard's order id counter
    KEYS[3] the shard's trade id counter
    ARGV[1] the counters' first value (the shard's id base)
    ARGV[2..] field, value pairs of the pair hash
  Output:
    {'OK'}
]]
local rcall = redis.call
rcall('HSET', KEYS[1], unpack(ARGV, 2))
rcall('SET', KEYS[2], ARGV[1], 'NX')
rcall('SET', KEYS[3], ARGV[1], 'NX')
return { 'OK' }
