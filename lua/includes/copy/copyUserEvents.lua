--[[
  What a copy transition tells the private user stream (includes/userEvents): the subscription's
  account (and, where money came from or went to it, the slave's own account) of the follower, and
  the master owner's wallet when fees or profit share may have reached it.
  `withSlave`: the slave's account moved too; `master`: '' when the master's wallet is untouched,
  else the payee (includes/copy/settle copyPayee): its user's wallet here, and what copyPay sent
  to the owner's home shard (`sent`, with the transfer's id: in flight, includes/userEvents).
]]
--- @include "includes/userEvents"

local function copyUserEvents(eventsKey, ts, maxlen, subKey, withSlave, master)
  local s = redis.call('HMGET', subKey, 'user', 'acct', 'slave', 'currency')
  local events = { userEvents.account(s[1], s[2], 'copy') }
  if withSlave then events[#events + 1] = userEvents.account(s[1], s[3], 'copy') end
  if master ~= '' then
    local e = userEvents.wallet(master.user, s[4], 'copy')
    if master.sent then e.xo, e.xa = master.id, master.sent end
    events[#events + 1] = e
  end
  userEvents.append(eventsKey, ts, maxlen, events)
end
