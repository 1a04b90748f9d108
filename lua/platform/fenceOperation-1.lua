--[[
  After a lost reply: did the attempt run? Answers the operation's recorded reply if it ran (this
  attempt or another one of the same operation); if not, makes sure this attempt never will, should
  its command still reach the server (lua/includes/operationRecord.lua). Either way the caller
  learns the one true outcome of its attempt.

  Input:
    KEYS[1] the operation record
    ARGV[1] seconds to keep the fence   ARGV[2] the attempt id the lost command carried
  Output:
    {'RAN', reply}   the operation ran; reply is what it answered
    {'NOT_RUN'}      this attempt did not run, and now never will
]]
local rcall = redis.call
--- @include "includes/operationRecord"
local opKey = KEYS[1]
local prior = rcall('GET', opKey)
if prior and isReplyRecord(prior) then return { 'RAN', cjson.decode(prior) } end
-- a fence naming another attempt bars this one already (and must stay: that one may still run)
if not prior or prior == OPERATION_FENCED .. ARGV[2] then rcall('SET', opKey, OPERATION_FENCED, 'EX', ARGV[1]) end
return { 'NOT_RUN' }
