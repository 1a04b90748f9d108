--[[
  Balance changes gathered during a command and written once at its end, so a taker that meets
  many makers of one account costs one HINCRBY per touched field, not one per fill.
]]
--- @include "includes/fmt"
--- @include "includes/undoLog"

local function addDelta(ctx, key, field, v)
  if v == 0 then return end
  if ctx.undo then undoDelta(ctx, key, field) end
  local byField = ctx.deltas[key]
  if not byField then
    byField = {}
    ctx.deltas[key] = byField
    ctx.deltaOrder[#ctx.deltaOrder + 1] = key
  end
  byField[field] = (byField[field] or 0) + v
end

local function flushDeltas(ctx)
  for _, key in ipairs(ctx.deltaOrder) do
    for field, v in pairs(ctx.deltas[key]) do
      if v ~= 0 then redis.call('HINCRBY', key, field, fmt(v)) end
    end
  end
end

-- What the command has added to `field` of `key` so far and not yet written.
local function pendingDelta(ctx, key, field)
  local byField = ctx.deltas[key]
  return byField and byField[field] or 0
end
