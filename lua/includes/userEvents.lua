--[[
  The shard's user event stream (keys.userEvents, docs/events.md "The user event stream"): a script
  that moves a user's money outside a market appends, in the same step, which balances it changed
  and why, so the private stream can send them. One entry per command: `ts` and `ev`, a JSON array
  of
    {e = 'wallet',  u = user, c = currency,   r = reason, bs, a, rs [, xo, xa] [, xi, xa]}
                                                        a wallet balance changed
    {e = 'account', u = user, a = account id, r = reason}   a futures account's balance changed
  with reason one of deposit, transfer, copy. A wallet event carries the user's wallet on this shard
  after the command (`a` available, `rs` reserved, minor units: append reads them, so every script
  gets them alike) and `bs`, the shard's balance sequence (below); a transfer between shards says
  what left for another shard (`xo` its id, `xa` its amount: in flight, the receiver's money
  until credited) or arrived (`xi` its id, `xa` its amount), so a sum over shards stays whole
  (docs/market-data.md, "Exact balances").

  The balance sequence (`<engine prefix>uevents:seq`, keys.balanceSeq): one INCR per command that
  changes a wallet, in the same step; a balance event carries it and the private stream's balance
  snapshot reads it with the wallets in one MULTI, so the gateway skips what a snapshot already
  shows and never applies an older value over a newer one, whatever stream it came by. The spot
  scripts build it from ARGV[1] as they build a maker's wallet keys (same slot); the others from
  their stream's key.

  One table, not several locals: the library's top level is near Lua 5.1's 200 locals
  (src/platform/redis/lua-loader.ts).
]]
--- @include "includes/fmt"

local userEvents = {
  wallet = function(user, currency, reason)
    return { e = 'wallet', u = user, c = currency, r = reason }
  end,
  account = function(user, acct, reason)
    return { e = 'account', u = user, a = acct, r = reason }
  end,
  -- Appends the entry; each wallet event gets the user's wallet here after the command and the
  -- command's balance sequence (the engine prefix is the stream key's, without `uevents`).
  append = function(key, ts, maxlen, events)
    local call, P, bs = redis.call, string.sub(key, 1, -8), nil
    for i = 1, #events do
      local e = events[i]
      if e.e == 'wallet' then
        bs = bs or fmt(call('INCR', key .. ':seq'))
        e.bs = bs
        e.a = call('HGET', P .. 'wallet:' .. e.u .. ':avail', e.c) or '0'
        e.rs = call('HGET', P .. 'wallet:' .. e.u .. ':rsv', e.c) or '0'
      end
    end
    call('XADD', key, 'MAXLEN', '~', maxlen, '*', 'ts', ts, 'ev', cjson.encode(events))
  end,
}

-- After flushDeltas: the wallet fields it wrote (ctx.written, includes/deltas) as one packed event
-- per user and currency on the market's entry, `bal|bs|u|c|a|rs`: the user's available and
-- reserved on this shard after the command (texts, minor units). The one the command did not
-- change is read (one HGET, per user and currency of the whole batch), so every event holds a
-- whole row: the gateway never pairs one command's value with another's. One INCR of the balance
-- sequence per command, none when no wallet moved.
function userEvents.walletStates(ctx)
  local w = ctx.written
  local n = #w
  if n == 0 then return end
  local P = ctx.P
  local at, from = #P + 1, #P + 8
  local states, order = {}, {}
  for i = 1, n, 3 do
    local key = w[i]
    if string.sub(key, at, at + 6) == 'wallet:' then
      local user, slot
      if string.sub(key, -6) == ':avail' then
        user, slot = string.sub(key, from, -7), 1
      else
        user, slot = string.sub(key, from, -5), 2
      end
      local id = user .. '|' .. w[i + 1]
      local s = states[id]
      if not s then
        s = { false, false, user, w[i + 1] }
        states[id] = s
        order[#order + 1] = id
      end
      s[slot] = w[i + 2]
    end
    w[i], w[i + 1], w[i + 2] = nil, nil, nil
  end
  if #order == 0 then return end
  local call = redis.call
  local bs = fmt(call('INCR', P .. 'uevents:seq'))
  local events = ctx.events
  for i = 1, #order do
    local s = states[order[i]]
    local a, r = s[1], s[2]
    if not a then a = call('HGET', P .. 'wallet:' .. s[3] .. ':avail', s[4]) or '0' end
    if not r then r = call('HGET', P .. 'wallet:' .. s[3] .. ':rsv', s[4]) or '0' end
    events[#events + 1] = 'bal|' .. bs .. '|' .. order[i] .. '|' .. a .. '|' .. r
  end
end
