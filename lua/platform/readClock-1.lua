--[[
  The clock of the server that holds KEYS[1]: what exactly-once deadlines are measured on
  (src/platform/redis/redis-clock.ts). The key only routes the call (a cluster's node of its slot).

  Input:
    KEYS[1] any key of the engine shard whose clock is wanted (not read)
  Output:
    {seconds, microseconds} as TIME answers them
]]
return redis.call('TIME')
