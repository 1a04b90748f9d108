--[[
  After a lost reply: did the operation run? Answers its recorded reply if it did; if it did not,
  fences the record so that the operation, should its command still reach the server later, refuses
  to run (lua/includes/operationRecord.lua). Either way the caller learns the one true outcome.

  Input:
    KEYS[1] the operation record
    ARGV[1] seconds to keep the fence
  Output:
    {'RAN', reply}   the operation ran; reply is what it answered
    {'NOT_RUN'}      it did not run, and now never will
]]
local rcall = redis.call
--- @include "includes/operationRecord"
local opKey = KEYS[1]
local prior = rcall('GET', opKey)
if prior == OPERATION_FENCED then return { 'NOT_RUN' } end
if prior then return { 'RAN', cjson.decode(prior) } end
rcall('SET', opKey, OPERATION_FENCED, 'EX', ARGV[1])
return { 'NOT_RUN' }
