--[[
  The end of a futures command: balance deltas, then every order the command touched (one HSET
  each) with the trigger indices of the positions among them and the open-orders indices of their
  accounts, then the market's event entry.
]]
--- @include "includes/futures/context"
--- @include "includes/futures/triggerIndex"
--- @include "includes/futures/accountIndex"
--- @include "includes/deltas"
--- @include "includes/publishEvents"
--- @include "includes/fmt"
--- @include "includes/futures/accountStats"

local function optTicks(v)
  if v == nil then return '' end
  return fmt(v)
end

-- Writes every object the command touched, with the trigger and account indices of the opening orders.
local function fFlush(ctx)
  for _, o in ipairs(ctx.dirtyOrder) do
    local key = fOrderKey(ctx, o.id)
    if o.role == 'close' then
      redis.call('HSET', key, 'id', fmt(o.id), 'kind', 'futures', 'role', 'close', 'user', o.user, 'acct', o.acct,
        'pair', ctx.pair, 'side', o.side, 'price', optTicks(o.price), 'amount', fmt(o.amount),
        'filled', fmt(o.filled), 'pos', o.pos, 'resting', o.resting or '0', 'uts', ctx.ts)
    else
      fIndex(ctx, o)
      fIndexAccount(ctx, o)
      fStatsOrder(ctx, o)
      local f = { 'filled', fmt(o.filled), 'rsv', fmt(o.rsv), 'cost', fmt(o.cost), 'ecost', fmt(o.ecost),
        'openQty', fmt(o.openQty), 'margin', fmt(o.margin), 'imargin', fmt(o.imargin), 'fee', fmt(o.fee),
        'rpnl', fmt(o.rpnl), 'funding', fmt(o.funding), 'status', o.status, 'tp', optTicks(o.tp),
        'sl', optTicks(o.sl), 'liq', optTicks(o.status == FST.IN_POSITION and o.liq or nil),
        'closeOrd', o.closeOrd, 'closeReason', o.closeReason or '', 'resting', o.resting or '0', 'uts', ctx.ts }
      -- a new order's fixed fields go out in the same HSET
      for _, v in ipairs(o.static or {}) do f[#f + 1] = v end
      redis.call('HSET', key, unpack(f))
    end
  end
  fStatsCommit(ctx)
end

local function fCommit(ctx)
  flushDeltas(ctx)
  fFlush(ctx)
  publishEvents(ctx)
end
