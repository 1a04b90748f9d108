--[[
  Exactly once (docs/architecture.md, Exactly once). Every script is also registered as
  `<name>Once`, which takes, after the script's own keys and arguments, the key of an operation
  record (last KEYS entry), then three ARGV entries: how many seconds to keep the record, the
  deadline (ms on THIS server's clock, src/platform/redis/redis-clock.ts) after which the command
  must not run, and the attempt id (random per send). The first run stores the script's reply
  under that key in the same atomic step; a repeat, by any attempt, answers the stored reply and
  changes nothing. A record that is a fence ('!', or '!<attempt>') refuses every attempt but the
  one it names: the service fences an attempt whose reply it lost before it answers
  (lua/platform/fenceOperation-1.lua), and a retry of a keyed operation names itself
  (lua/platform/reopenOperation-1.lua) so that it alone may run. A command that reaches the
  server after its deadline (a server that stalled with it in its socket buffer) refuses to run
  too: the service has answered its client by then, and an answered attempt must never run later.
  Replies: {'ERR', 'OPERATION_FENCED', ''} for a fence naming another attempt, {'ERR',
  'OPERATION_ABORTED', ''} for a deadline passed; neither changed anything.
  This and lua/platform/readClock-1.lua are the only places a script reads TIME; both guard, neither
  decides anything about money.
  A runtime error is recorded too (its writes so far stay: a script has no rollback) and re-raised.
  Replies pass through cjson, so a script must answer big integers as strings (it does: docs/architecture.md).
  A script whose reply is a list of per-item lists (createFuturesOrders) hands it to
  answerAsRecord: a first run then answers the record's JSON text itself, which the service decodes
  into the same lists (src/platform/redis/scripts.ts), instead of the table: Redis turns each
  nested Lua table into RESP at ~7,000 instructions (it probes it for err, ok, double, map, set...
  first), and the text is made anyway. A repeat answers the table, as any other reply.
]]
--- @include "includes/rcall"
--- @include "includes/globals"
-- A fence's first character ('!', byte 33): no reply record starts with it (cjson text starts with [ { " or a letter).
local OPERATION_FENCED = '!'

-- Whether a stored record is a script's reply rather than a fence.
local function isReplyRecord(prior)
  return string.sub(prior, 1, 1) ~= OPERATION_FENCED
end

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
  local opKey, ttl, deadline, attempt = KEYS[nk], ARGV[na - 2], ARGV[na - 1] + 0, ARGV[na]
  KEYS[nk], ARGV[na], ARGV[na - 1], ARGV[na - 2] = nil, nil, nil, nil
  local call = RCALL or rcallOf()
  local prior = call('GET', opKey)
  if prior then
    if isReplyRecord(prior) then return (TCJSON or cjsonOf()).decode(prior) end
    if prior ~= OPERATION_FENCED .. attempt then return { 'ERR', 'OPERATION_FENCED', '' } end
  end
  local now = call('TIME')
  -- floor(ms) > deadline, an integer, is ms >= deadline + 1: no math.floor (a global and a call)
  if now[1] * 1000 + now[2] / 1000 >= deadline + 1 then return { 'ERR', 'OPERATION_ABORTED', '' } end
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
