--[[
  Step 4 of a transfer: on the sending shard, once the credit is durable at the receiver, the
  outbox entry goes and the record is kept (state done) as long as a replay could still come, so
  a late step 1 with the same id still finds it and does nothing.

  Input:
    KEYS[1] the transfer record   KEYS[2] this shard's outbox stream
    KEYS[3] the user's pending transfers from here   KEYS[4] transfer versions (hash user -> count)
    ARGV[1] transfer id   ARGV[2] seconds the done record is kept
  Output:
    {'OK'} acknowledged; {'DUP'} acknowledged before; {'GONE'} no such transfer
]]
local rcall = redis.call
local f = rcall('HMGET', KEYS[1], 'state', 'entry', 'user')
if not f[1] then return { 'GONE' } end
if f[1] == 'done' then return { 'DUP' } end
rcall('XDEL', KEYS[2], f[2])
rcall('HSET', KEYS[1], 'state', 'done')
rcall('EXPIRE', KEYS[1], ARGV[2])
rcall('HDEL', KEYS[3], ARGV[1])
rcall('HINCRBY', KEYS[4], f[3], 1)
return { 'OK' }
