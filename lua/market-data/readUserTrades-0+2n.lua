--[[
  One page of a user's trades with their records, in one call: the user's index of a market
  (includes/tradeHistory) holds only ids and roles, the record sits in the market's history, so
  reading them apart cost a round trip or a command per fill. O(log n + page) per source.

  Input: n sources; the file name says 0 keys plus 2 per source.
    per source i, from k = 2 (i - 1):
    KEYS[k+1] the user's index on a market (zset, score = trade id, member = id:t | id:m)
    KEYS[k+2] the market's trade records (zset, score = trade id, member = the record)
    per source i, from a = 4 (i - 1):
    ARGV[a+1] highest trade id wanted ('+inf' for none)
    ARGV[a+2] lowest trade id wanted
    ARGV[a+3] how many of the ids in range to skip, newest first
    ARGV[a+4] how many to read after them
  Keys built while running: none.
  Output: per source, a flat list {member, record, ...} newest first (by id, then member, as
    ZREVRANGE orders them); a member whose record is gone (trimmed past the retention) is left out.
  Events: none; writes nothing.
]]
local rcall = redis.call
local out = {}
for i = 0, #KEYS / 2 - 1 do
  local index, records = KEYS[2 * i + 1], KEYS[2 * i + 2]
  local maxId, minId = ARGV[4 * i + 1], tonumber(ARGV[4 * i + 2])
  local skip, count = tonumber(ARGV[4 * i + 3]), tonumber(ARGV[4 * i + 4])
  local page = {}
  if count > 0 then
    -- by rank from the first id at or below maxId: no skipping through members
    local above = 0
    if maxId ~= '+inf' then above = rcall('ZCOUNT', index, '(' .. maxId, '+inf') end
    local start = above + skip
    local members = rcall('ZREVRANGE', index, start, start + count - 1, 'WITHSCORES')
    for j = 1, #members, 2 do
      local id = tonumber(members[j + 1])
      if id < minId then break end
      local rec = rcall('ZRANGEBYSCORE', records, members[j + 1], members[j + 1])[1]
      if rec then
        page[#page + 1] = members[j]
        page[#page + 1] = rec
      end
    end
  end
  out[#out + 1] = page
end
return out
