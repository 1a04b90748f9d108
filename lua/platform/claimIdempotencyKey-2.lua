--[[
  Claims a client's Idempotency-Key for one attempt of its request
  (src/transport/http/middleware/idempotency.ts). The record keeps the request's fingerprint from
  the first attempt on, so the key never serves another request, and the first answer once there
  is one; the lease says an attempt is running and lapses by itself (on this server's clock), so
  an attempt that could not release it (Redis went away as it answered) holds the key for seconds,
  never for the record's lifetime.

  Input:
    KEYS[1] the key's record (hash: fp = fingerprint, answer = the first answer, JSON)
    KEYS[2] the key's lease
    ARGV[1] the request's fingerprint   ARGV[2] seconds to keep the record   ARGV[3] ms the lease lasts
  Output:
    {'ANSWER', json}   answered before: the answer to replay
    {'REUSED'}         the key belongs to another request (method, path or body)
    {'RUNNING'}        another attempt holds the lease
    {'CLAIMED'}        this attempt runs, holding the lease
]]
local rcall = redis.call
local fp = rcall('HGET', KEYS[1], 'fp')
if fp and fp ~= ARGV[1] then return { 'REUSED' } end
local answer = rcall('HGET', KEYS[1], 'answer')
if answer then return { 'ANSWER', answer } end
if not rcall('SET', KEYS[2], '1', 'NX', 'PX', ARGV[3]) then return { 'RUNNING' } end
if not fp then
  rcall('HSET', KEYS[1], 'fp', ARGV[1])
  rcall('EXPIRE', KEYS[1], ARGV[2])
end
return { 'CLAIMED' }
