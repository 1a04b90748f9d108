--[[
  An undo log for one part of a command (one spot order of a batch), so a part whose run fails
  leaves no trace (issue 11, finding 6). Each write of the part notes what was there before it: a
  hash field, sorted-set member, set member, string, new key, an entry of ctx.changed (the levels an
  event will print) or a pending balance change. undoRollback puts it all back, newest first (so a
  thing written twice gets the value from before the first write), and drops the part's events and
  the ids it took (ctx.ids, includes/idCounter). Off (ctx.undo nil) the write sites skip it:
  futures commands never turn it on.
  A write site that knows the prior value passes it (the command's reply tells it, or what the part
  read before): no command is spent on the log. Only a site that passes none has it read here.
  The log is one flat array (kind, key, sub, prior per write) kept by the context from one part to
  the next and from one call to the next (ctx.undoLog): a part starts by setting its length to 0,
  where a log of tables per write, made new each part, cost more than the writes it guarded.
]]

local function undoBegin(ctx)
  local u = ctx.undoLog
  if not u then
    u = { n = 0, events = 0, deltaOrder = 0, bookChanged = false, lastTicks = nil, ts = nil, oid = nil, tid = nil }
    ctx.undoLog = u
  end
  local ids = ctx.ids
  u.n, u.events, u.deltaOrder = 0, #ctx.events, #ctx.deltaOrder
  u.bookChanged, u.lastTicks, u.ts, u.oid = ctx.bookChanged, ctx.lastTicks, ctx.ts, nil
  u.tid = ids and ids.tidNext or false
  ctx.undo = u
end

-- kind: 'h' hash field, 'z' sorted-set member (prior: its score), 's' set member (prior: true when
-- it was there), 'k' string key, 'n' a key that does not exist before this part (an order's new
-- hash): undone by deleting it, 'c' ctx.changed[key][sub] (key: a book side), 'd' a pending
-- balance change ctx.deltas[key][sub] (includes/deltas). `prior`: what was there, false for
-- nothing; nil to read it here (a Redis kind).
local function undoRemember(ctx, kind, key, sub, prior)
  local u = ctx.undo
  if not u then return end
  if prior == nil then
    if kind == 'h' then
      prior = redis.call('HGET', key, sub)
    elseif kind == 'z' then
      prior = redis.call('ZSCORE', key, sub)
    elseif kind == 's' then
      prior = redis.call('SISMEMBER', key, sub) == 1
    elseif kind == 'n' then
      prior = false
    else
      prior = redis.call('GET', key)
    end
  end
  -- (includes/deltas addDelta writes its 'd' entries itself, in this layout)
  local n = u.n
  u[n + 1], u[n + 2], u[n + 3], u[n + 4] = kind, key, sub or false, prior
  u.n = n + 4
end

local function undoRollback(ctx)
  local u = ctx.undo
  for i = u.n - 3, 1, -4 do
    local kind, key, sub, prior = u[i], u[i + 1], u[i + 2], u[i + 3]
    if kind == 'd' then
      local byField = ctx.deltas[key]
      if byField then byField[sub] = prior or nil end
    elseif kind == 'c' then
      ctx.changed[key][sub] = prior or nil
    elseif kind == 'h' then
      if prior then redis.call('HSET', key, sub, prior) else redis.call('HDEL', key, sub) end
    elseif kind == 'z' then
      if prior then redis.call('ZADD', key, prior, sub) else redis.call('ZREM', key, sub) end
    elseif kind == 's' then
      if prior then redis.call('SADD', key, sub) else redis.call('SREM', key, sub) end
    elseif prior then
      redis.call('SET', key, prior)
    else
      redis.call('DEL', key)
    end
  end
  -- keys first touched by this part leave the flush order (their fields are gone above)
  for i = #ctx.deltaOrder, u.deltaOrder + 1, -1 do
    ctx.deltas[ctx.deltaOrder[i]] = nil
    ctx.deltaOrder[i] = nil
  end
  for i = #ctx.events, u.events + 1, -1 do ctx.events[i] = nil end
  ctx.bookChanged, ctx.lastTicks, ctx.ts = u.bookChanged, u.lastTicks, u.ts
  -- the ids it took go back: its order's, and the trade ids from the first it took
  local ids = ctx.ids
  if ids then
    if u.oid then ids.oidNext = u.oid end
    ids.tidNext = u.tid or ids.tidFirst
  end
  ctx.undo = nil
end
