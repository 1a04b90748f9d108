--[[
  One clientOrderId per user over every market, across engine shards (docs/architecture.md,
  "clientOrderId across shards"): at the user's home, claims a clientOrderId for an order about to be
  placed on another shard, so the same clientOrderId sent to markets of two shards places one order.
  The home's clientOrderId hash is the registry: orders placed at home write their id there
  (placeSpotOrders), orders elsewhere are claimed here as `@<shard>` first. A claim stays, like an
  order's clientOrderId does. Futures orders use it the same way with the home's futures
  clientOrderId hash as the registry (docs/futures.md, "Futures on engine shards").

  Input:
    KEYS[1] the user's clientOrderId hash at home
    ARGV[1] clientOrderId   ARGV[2] `@<shard>` of the market the order goes to
  Output:
    {'OK'}            claimed now, or before for the same shard (that shard's own hash finds a repeat)
    {'TAKEN', value}  used by an order at home (its id) or claimed for another shard (`@<shard>`)
]]
local rcall = redis.call
local held = rcall('HGET', KEYS[1], ARGV[1])
if not held then
  rcall('HSET', KEYS[1], ARGV[1], ARGV[2])
  return { 'OK' }
end
if held == ARGV[2] then return { 'OK' } end
return { 'TAKEN', held }
