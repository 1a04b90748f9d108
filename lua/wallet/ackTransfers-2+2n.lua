--[[
  Step 4 of n transfers from this shard: for each, once its credit is durable at the receiver, the
  outbox entry goes and the record is kept (state done) as long as a replay could still come, so
  a late step 1 with the same id still finds it and does nothing. One call acknowledges what
  queued up while the previous one ran (group commit).

  Input: n transfers; the file name says 2 keys plus 2 per transfer.
    KEYS[1] this shard's outbox stream   KEYS[2] transfer versions (hash user -> count)
    per transfer i, from k = 2 + 2 (i - 1):
    KEYS[k+1] the transfer record   KEYS[k+2] its user's pending transfers from here
    ARGV[1] seconds a done record is kept
    per transfer i: ARGV[1 + i] transfer id
  Output: one reply per transfer, in order:
    {'OK'} acknowledged; {'DUP'} acknowledged before; {'GONE'} no such transfer
]]
local rcall = redis.call
local outbox, versions = KEYS[1], KEYS[2]
local keep = ARGV[1]
local out = {}
for i = 1, (#KEYS - 2) / 2 do
  local record, pending, id = KEYS[1 + 2 * i], KEYS[2 + 2 * i], ARGV[1 + i]
  local f = rcall('HMGET', record, 'state', 'entry', 'user')
  if not f[1] then
    out[i] = { 'GONE' }
  elseif f[1] == 'done' then
    out[i] = { 'DUP' }
  else
    rcall('XDEL', outbox, f[2])
    rcall('HSET', record, 'state', 'done')
    rcall('EXPIRE', record, keep)
    rcall('HDEL', pending, id)
    rcall('HINCRBY', versions, f[3], 1)
    out[i] = { 'OK' }
  end
end
return out
