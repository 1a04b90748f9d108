--[[
  A retry of a keyed operation (its id derived from the client's Idempotency-Key) whose record is a
  fence: an earlier attempt's reply was lost and it was fenced, so it never ran and never will.
  Names this attempt as the one that may run (lua/includes/operationRecord.lua): every earlier
  attempt stays barred, however late its command arrives. If the operation ran meanwhile, its
  reply is the answer and nothing changes.

  Input:
    KEYS[1] the operation record
    ARGV[1] seconds to keep the record   ARGV[2] the attempt id that may run
  Output:
    {'RAN', reply}   the operation ran; reply is what it answered
    {'OPEN'}         only the named attempt may run now
]]
local rcall = redis.call
--- @include "includes/operationRecord"
local opKey = KEYS[1]
local prior = rcall('GET', opKey)
if prior and isReplyRecord(prior) then return { 'RAN', cjson.decode(prior) } end
rcall('SET', opKey, OPERATION_FENCED .. ARGV[2], 'EX', ARGV[1])
return { 'OPEN' }
