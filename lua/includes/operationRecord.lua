--[[
  Exactly once (docs/api-contract.md#exactly-once). Every script is also registered as `<name>Once`, which takes, after the
  script's own keys and arguments, the key of an operation record (last KEYS entry), how many
  seconds to keep it and the time (ms, the service's clock) after which it must not run (the last
  two ARGV entries). The first run stores the script's reply under that key in the same atomic
  step; a repeat answers the stored reply and changes nothing; a record the service fenced after a
  lost reply ('!', lua/platform/fenceOperation-1.lua) refuses to run at all, and so does a command
  that reaches the server after its deadline (a server that stalled with it in its socket buffer):
  the service has answered its client by then, and an answered request must never run later.
  This is the one place a script reads TIME; it guards, it decides nothing about money.
  A runtime error is recorded too (its writes so far stay: a script has no rollback) and re-raised.
  Replies pass through cjson, so a script must answer big integers as strings (it does: docs/api-contract.md#numbers).
  A script whose reply is a list of per-item lists (createFuturesOrders) hands it to
  answerAsRecord: a first run then answers the record's JSON text itself, which the service decodes
  into the same lists (src/platform/redis/scripts.ts), instead of the table: Redis turns each
  nested Lua table into RESP at ~7,000 instructions (it probes it for err, ok, double, map, set...
  first), and the text is made anyway. A repeat answers the table, as any other reply.
]]
--- @include "includes/rcall"
--- @include "includes/globals"
local OPERATION_FENCED = '!'

-- The reply the running script handed to answerAsRecord; runOnce clears it before each run.
local replyAsRecord

-- `reply`: a non-empty list of non-empty lists of strings without holes (where the JSON text and
-- RESP give the same lists: cjson prints a hole as null where RESP stops, and {} as an object).
local function answerAsRecord(reply)
  replyAsRecord = reply
end

local function runOnce(body, KEYS, ARGV)
  -- the last entries taken off in place (table.remove is a C call each); numbers read by arithmetic,
  -- which converts a string once where tonumber converts it twice
  local nk, na = #KEYS, #ARGV
  local opKey, ttl, deadline = KEYS[nk], ARGV[na - 1], ARGV[na] + 0
  KEYS[nk], ARGV[na], ARGV[na - 1] = nil, nil, nil
  local call = RCALL or rcallOf()
  local prior = call('GET', opKey)
  if prior == OPERATION_FENCED then return { 'ERR', 'OPERATION_ABORTED', '' } end
  if prior then return (TCJSON or cjsonOf()).decode(prior) end
  local now = call('TIME')
  -- floor(ms) > deadline, an integer, is ms >= deadline + 1: no math.floor (a global and a call)
  if now[1] * 1000 + now[2] / 1000 >= deadline + 1 then
    call('SET', opKey, OPERATION_FENCED, 'EX', ttl)
    return { 'ERR', 'OPERATION_ABORTED', '' }
  end
  replyAsRecord = nil
  local json = TCJSON or cjsonOf()
  local ok, reply = (TPCALL or pcallOf())(body, KEYS, ARGV)
  if not ok then
    call('SET', opKey, json.encode({ 'ERR', 'ENGINE_ERROR', '' }), 'EX', ttl)
    error(reply)
  end
  local record = json.encode(reply == nil and false or reply)
  call('SET', opKey, record, 'EX', ttl)
  if reply == replyAsRecord and reply ~= nil then return record end
  return reply
end
