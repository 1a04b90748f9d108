--[[
  The shard's user event stream (keys.userEvents, docs/events.md "The user event stream"): a script
  that moves a user's money outside a market appends, in the same step, which balances it changed
  and why, so the private stream can send them. One entry per command: `ts` and `ev`, a JSON array
  of
    {e = 'wallet',  u = user, c = currency,   r = reason}   a wallet balance changed
    {e = 'account', u = user, a = account id, r = reason}   a futures account's balance changed
  with reason one of deposit, transfer, copy. One table, not three locals: the library's top level
  is near Lua 5.1's 200 locals (src/platform/redis/lua-loader.ts).
]]

local userEvents = {
  wallet = function(user, currency, reason)
    return { e = 'wallet', u = user, c = currency, r = reason }
  end,
  account = function(user, acct, reason)
    return { e = 'account', u = user, a = acct, r = reason }
  end,
  append = function(key, ts, maxlen, events)
    redis.call('XADD', key, 'MAXLEN', '~', maxlen, '*', 'ts', ts, 'ev', cjson.encode(events))
  end,
}
