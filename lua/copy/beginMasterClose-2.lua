--[[
  First step of closing a master (Active -> Closing, docs/copy-trading.md): from here it takes no new followers
  (startCopy wants Active); it is listed as closing so a worker resumes the close after a crash.
  Only one close wins: any other finds it not Active (409).

  Input:
    KEYS[1] the master record hash   KEYS[2] closing masters (set)
    ARGV[1] the owner's user id
  Output:
    {'OK'}
    {'ERR', code, detail} nothing changed: MASTER_NOT_FOUND, MASTER_CLOSED
]]
local m = redis.call('HMGET', KEYS[1], 'id', 'status', 'user')
if not m[1] or m[3] ~= ARGV[1] then return { 'ERR', 'MASTER_NOT_FOUND', '' } end
if m[2] ~= 'Active' then return { 'ERR', 'MASTER_CLOSED', '' } end
redis.call('HSET', KEYS[1], 'status', 'Closing')
redis.call('SADD', KEYS[2], m[1])
return { 'OK' }
