--[[
  An undo log for one part of a command (one spot order of a batch), so a part whose run fails
  leaves no trace (issue 11, finding 6). Before its first write to a hash field, sorted-set member,
  set member, string, book level or pending balance change, the part remembers what was there;
  undoRollback puts it all back and drops the part's events. Off (ctx.undo nil) the write sites
  skip it: futures commands never turn it on.
]]

local function undoBegin(ctx)
  ctx.undo = {
    seen = {}, ops = {}, changed = {}, deltas = {},
    events = #ctx.events, deltaOrder = #ctx.deltaOrder,
    bookChanged = ctx.bookChanged, lastTicks = ctx.lastTicks, ts = ctx.ts,
  }
end

-- kind: 'h' hash field, 'z' sorted-set member, 's' set member, 'k' string key, 'n' a key that does
-- not exist before this part (an order's new hash): undone by deleting it.
local function undoRemember(ctx, kind, key, sub)
  local u = ctx.undo
  if not u then return end
  local id = kind .. key .. '\0' .. (sub or '')
  if u.seen[id] then return end
  u.seen[id] = true
  local prior
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
  u.ops[#u.ops + 1] = { kind, key, sub, prior }
end

-- A book level about to change: its total, its place among the levels, and what publishEvents would print.
local function undoLevel(ctx, side, p)
  local u = ctx.undo
  if not u then return end
  undoRemember(ctx, 'h', ctx.keys.lvlqty[side], p)
  undoRemember(ctx, 'z', ctx.keys.levels[side], p)
  local id = side .. p
  if u.changed[id] == nil then u.changed[id] = { side, p, ctx.changed[side][p] or false } end
end

-- A pending balance change about to move (includes/deltas).
local function undoDelta(ctx, key, field)
  local u = ctx.undo
  local id = key .. '\0' .. field
  if u.deltas[id] ~= nil then return end
  local byField = ctx.deltas[key]
  u.deltas[id] = { key, field, byField and byField[field] or false }
end

local function undoRollback(ctx)
  local u = ctx.undo
  for i = #u.ops, 1, -1 do
    local kind, key, sub, prior = u.ops[i][1], u.ops[i][2], u.ops[i][3], u.ops[i][4]
    if kind == 'h' then
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
  for _, c in pairs(u.changed) do ctx.changed[c[1]][c[2]] = c[3] or nil end
  for _, d in pairs(u.deltas) do
    local byField = ctx.deltas[d[1]]
    if byField then byField[d[2]] = d[3] or nil end
  end
  -- keys first touched by this part leave the flush order (their fields are gone above)
  for i = #ctx.deltaOrder, u.deltaOrder + 1, -1 do
    ctx.deltas[ctx.deltaOrder[i]] = nil
    ctx.deltaOrder[i] = nil
  end
  for i = #ctx.events, u.events + 1, -1 do ctx.events[i] = nil end
  ctx.bookChanged, ctx.lastTicks, ctx.ts = u.bookChanged, u.lastTicks, u.ts
  ctx.undo = nil
end
