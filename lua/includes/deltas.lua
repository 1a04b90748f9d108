--[[
  Balance changes gathered during a command and written once at its end, so a taker that meets
  many makers of one account costs one HINCRBY per touched field, not one per fill; a hash that no
  order of a batch reads (its fees pot) can wait for the batch's end (flushDeltas' holdKey).
]]
--- @include "includes/fmt"
--- @include "includes/undoLog"
--- @include "includes/rcall"
--- @include "includes/globals"

local function addDelta(ctx, key, field, v)
  if v == 0 then return end
  local deltas = ctx.deltas
  local byField = deltas[key]
  local u = ctx.undo
  if u then
    -- the pending change before, false for none: undoRemember's entry (includes/undoLog kind 'd'),
    -- written here, where a spot order makes ten a fill: the call cost more than the entry
    local n = u.n
    u[n + 1], u[n + 2], u[n + 3], u[n + 4] = 'd', key, field, byField and byField[field] or false
    u.n = n + 4
  end
  if byField then
    byField[field] = (byField[field] or 0) + v
    return
  end
  -- a hash with no pending change gets its field in the constructor, not an empty table grown
  deltas[key] = { [field] = v }
  local order = ctx.deltaOrder
  order[#order + 1] = key
end

-- Moves `v` from one field of `key` to another and takes `cost` (nil: none) more from the first:
-- a reservation (balance to locked), a fill's margin and fee, a reservation given back. One call
-- for both fields; a hash with no pending change gets both in one constructor, not an empty table
-- grown twice. A field whose change is 0 is left alone, as addDelta leaves it.
local function moveDelta(ctx, key, from, to, v, cost)
  local out = v
  if cost then out = v + cost end
  if v == 0 or out == 0 then
    addDelta(ctx, key, from, -out)
    addDelta(ctx, key, to, v)
    return
  end
  local deltas = ctx.deltas
  local byField = deltas[key]
  if ctx.undo then
    undoRemember(ctx, 'd', key, from, byField and byField[from] or false)
    undoRemember(ctx, 'd', key, to, byField and byField[to] or false)
  end
  if byField then
    byField[from] = (byField[from] or 0) - out
    byField[to] = (byField[to] or 0) + v
    return
  end
  deltas[key] = { [from] = -out, [to] = v }
  local order = ctx.deltaOrder
  order[#order + 1] = key
end

-- `values` (field -> number) are what the command read of `key`, a hash nothing but its deltas
-- changes until flushDeltas: that hash then gets its new values in one HSET instead of an HINCRBY
-- per field (an order's own account: its balance and locked margin).
local function knowValues(ctx, key, values)
  ctx.known = ctx.known or {}
  ctx.known[key] = values
end

-- Writes every pending change. `holdKey`, `held`: a key whose changes are not written here but
-- added into `held` (field -> sum; nil takes this command's own table), which is returned for the
-- caller to write with flushHeld once it has gathered those of several commands (a batch's fees
-- pot, which none of its orders reads). `ctx.written`, when the command keeps one (the spot
-- scripts, for the private stream's balances: userEvents.walletStates), gets each field written
-- with its value after: key, field, value, key, field, value, ... (HINCRBY answers it).
local function flushDeltas(ctx, holdKey, held)
  local deltas, known, order, call, nx = ctx.deltas, ctx.known, ctx.deltaOrder, RCALL or rcallOf(), TNEXT or tnextOf()
  local written = ctx.written
  -- a numeric for: ipairs calls its C iterator once per key
  for i = 1, #order do
    local key = order[i]
    if key == holdKey then
      local byField = deltas[key]
      if held then
        for field, v in nx, byField do held[field] = (held[field] or 0) + v end
      else
        held = byField
      end
    else
      local values = known and known[key]
      -- the first two known fields (an order's balance and locked) in locals, any more in a table
      local f1, v1, f2, v2, more
      for field, v in nx, deltas[key] do
        if v ~= 0 then
          local before = values and values[field]
          if not before then
            local after = call('HINCRBY', key, field, fmt(v))
            if written then
              local w = #written
              written[w + 1], written[w + 2], written[w + 3] = key, field, fmt(after)
            end
          elseif not f1 then
            f1, v1 = field, fmt(before + v)
          elseif not f2 then
            f2, v2 = field, fmt(before + v)
          else
            more = more or {}
            more[#more + 1] = field
            more[#more + 1] = fmt(before + v)
          end
        end
      end
      if written and f1 then
        local w = #written
        written[w + 1], written[w + 2], written[w + 3] = key, f1, v1
        if f2 then written[w + 4], written[w + 5], written[w + 6] = key, f2, v2 end
        if more then
          for j = 1, #more, 2 do
            w = #written
            written[w + 1], written[w + 2], written[w + 3] = key, more[j], more[j + 1]
          end
        end
      end
      if more then
        call('HSET', key, f1, v1, f2, v2, unpack(more))
      elseif f2 then
        call('HSET', key, f1, v1, f2, v2)
      elseif f1 then
        call('HSET', key, f1, v1)
      end
    end
  end
  return held
end

-- Writes what flushDeltas held back of `key`.
local function flushHeld(key, held)
  if not held then return end
  local call = RCALL or rcallOf()
  for field, v in TNEXT or tnextOf(), held do
    if v ~= 0 then call('HINCRBY', key, field, fmt(v)) end
  end
end

-- What the command has added to `field` of `key` so far and not yet written.
local function pendingDelta(ctx, key, field)
  local byField = ctx.deltas[key]
  return byField and byField[field] or 0
end
