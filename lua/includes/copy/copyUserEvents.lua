--[[
  What a copy transition tells the private user stream (includes/userEvents): the subscription's
  account (and, where money came from or went to it, the slave's own account) of the follower, and
  the master owner's wallet when fees or profit share may have reached it.
  `withSlave`: the slave's account moved too; `masterUser`: '' when the master's wallet is untouched.
]]
--- @include "includes/userEvents"

local function copyUserEvents(eventsKey, ts, maxlen, subKey, withSlave, masterUser)
  local s = redis.call('HMGET', subKey, 'user', 'acct', 'slave', 'currency')
  local events = { userEvents.account(s[1], s[2], 'copy') }
  if withSlave then events[#events + 1] = userEvents.account(s[1], s[3], 'copy') end
  if masterUser ~= '' then events[#events + 1] = userEvents.wallet(masterUser, s[4], 'copy') end
  userEvents.append(eventsKey, ts, maxlen, events)
end
