--[[
  The order book of one market. Per side: a sorted set of resting orders (score = price in ticks,
  negated for bids so the best comes first on both sides; member = the order id zero-padded to 16
  digits, so equal prices keep arrival order exactly), and the aggregated levels (a sorted set of
  prices plus a hash price -> total lots). Level changes are remembered in ctx.changed (price -> new
  total) and published as one diff per command.
]]
--- @include "includes/fmt"
--- @include "includes/undoLog"
--- @include "includes/rcall"

-- The score of price `p` (ticks, as text) on `side`. Scores go to Redis as strings: a Lua number
-- handed to redis.call is printed with '%.14g', which is both slower and, past 14 digits, inexact.
local function scoreText(side, p)
  if side == 'bids' then return '-' .. p end
  return p
end

-- ctx.changed[side][p] keeps the level's new total as publishEvents prints it ('0' once removed),
-- so publishing needs no HGET per changed level. `p`, `deltaText`: the price and the change as
-- text, when the caller has them (a number printed costs about as much as a command's dispatch).
-- A context with `levelsLater` (placeSpotOrders' batch, includes/spot/spotBatch) keeps there the
-- call's net change of the level instead (its text while there is one change, then a number) and
-- writes it once, with `now`, when publishEvents prints the entry: a level that many fills of one
-- call take from is written once, and no order's undo entry needs the level's hash and zset.
local function changeLevel(ctx, side, ticks, delta, p, deltaText, now)
  p = p or fmt(ticks)
  if ctx.levelsLater and not now then
    local pending = ctx.changed[side]
    local prior = pending[p]
    if ctx.undo then undoRemember(ctx, 'c', side, p, prior or false) end
    -- string arithmetic reads a text as its number
    if prior then pending[p] = prior + delta else pending[p] = deltaText or delta end
    ctx.bookChanged = true
    return
  end
  deltaText = deltaText or fmt(delta)
  local call = RCALL or rcallOf()
  local qty = call('HINCRBY', ctx.keys.lvlqty[side], p, deltaText)
  -- the level before, from the reply: a total above 0 is a member of the level prices
  if ctx.undo then
    local before = qty - delta
    undoRemember(ctx, 'c', side, p, ctx.changed[side][p] or false)
    undoRemember(ctx, 'h', ctx.keys.lvlqty[side], p, before > 0 and before)
    undoRemember(ctx, 'z', ctx.keys.levels[side], p, before > 0 and scoreText(side, p))
  end
  if qty <= 0 then
    call('HDEL', ctx.keys.lvlqty[side], p)
    call('ZREM', ctx.keys.levels[side], p)
    ctx.changed[side][p] = '0'
  elseif qty == delta then
    -- a new level
    call('ZADD', ctx.keys.levels[side], scoreText(side, p), p)
    ctx.changed[side][p] = deltaText
  else
    ctx.changed[side][p] = fmt(qty)
  end
  ctx.bookChanged = true
end

-- `p`, `lotsText`, `idText`: the price, the lots and the id as text, when the caller has them.
local function restOrder(ctx, side, id, ticks, lots, p, lotsText, idText)
  p = p or fmt(ticks)
  local member = fmt016(id, idText)
  local call = RCALL or rcallOf()
  -- a new order's member: nothing there before
  if ctx.undo then undoRemember(ctx, 'z', ctx.keys.book[side], member, false) end
  call('ZADD', ctx.keys.book[side], scoreText(side, p), member)
  changeLevel(ctx, side, ticks, lots, p, lotsText)
end

-- `member`, `p`, `lotsText`: the order's book member, its price and the lots as text when the
-- caller already holds them (bestOrder gives the first two).
local function unrestOrder(ctx, side, id, ticks, lots, member, p, lotsText)
  member = member or fmt016(id)
  local call = RCALL or rcallOf()
  -- the reply says whether it was there, at its price's score
  if call('ZREM', ctx.keys.book[side], member) == 1 and ctx.undo then
    undoRemember(ctx, 'z', ctx.keys.book[side], member, scoreText(side, p or fmt(ticks)))
  end
  if lots > 0 then changeLevel(ctx, side, ticks, -lots, p, lotsText and '-' .. lotsText) end
end

-- The best resting order of a side: id, price in ticks, book member, price as text; nil when the
-- side is empty. The score of an integer price comes back as its digits ('%.17g'), a bid's negated.
-- Read by arithmetic: one string conversion each, where tonumber makes two. A bid's sign goes by
-- the string's method (its metatable's table), not the global `string` (~270 instructions a lookup).
local function bestOrder(ctx, side)
  local call = RCALL or rcallOf()
  local top = call('ZRANGE', ctx.keys.book[side], '0', '0', 'WITHSCORES')
  if #top == 0 then return nil end
  local p = top[2]
  if side == 'bids' then p = p:sub(2) end
  return top[1] + 0, p + 0, top[1], p
end

-- The book sides of an order's side, as tables a hot path reads without a call.
local OPPOSITE_SIDE = { buy = 'asks', sell = 'bids' }
local OWN_SIDE = { buy = 'bids', sell = 'asks' }

local function oppositeSide(orderSide)
  return OPPOSITE_SIDE[orderSide]
end

local function ownSide(orderSide)
  return OWN_SIDE[orderSide]
end

-- Would an order at `limit` ticks on `orderSide` meet the given opposite price?
local function crosses(orderSide, limit, ticks)
  if limit == nil then return true end
  if orderSide == 'buy' then return ticks <= limit end
  return ticks >= limit
end
