--[[
  The sending half of step 1 of a transfer (docs/architecture.md, "Transfers between home and
  escrow"), for a script that has already taken `amount` off a balance of this shard: writes the
  record, appends it to the shard's outbox and notes it among the receiving user's pending
  transfers from here (merged reads count it once, by its id, until it is credited).
  `t`: id, user (whose balance at `to` is credited), cur, amount (text, minor units), from, to,
  ts; acct: a futures account whose margin moves ('' or nil: the wallet); for a payment from one
  user to another also kind = 'payment', payer (the user debited).
  Keys: record, outbox, pending (the receiving user's), versions (hash user -> count).
]]

local function transferOut(record, outbox, pending, versions, t)
  local acct, kind, payer = t.acct or '', t.kind or 'move', t.payer or t.user
  local entry = redis.call('XADD', outbox, '*', 'id', t.id, 'user', t.user, 'cur', t.cur, 'amount', t.amount,
    'from', t.from, 'to', t.to, 'acct', acct, 'kind', kind, 'payer', payer)
  redis.call('HSET', record, 'user', t.user, 'cur', t.cur, 'amount', t.amount, 'from', t.from, 'to', t.to,
    'state', 'sent', 'entry', entry, 'ts', t.ts, 'acct', acct, 'kind', kind, 'payer', payer)
  redis.call('HSET', pending, t.id, t.cur .. '|' .. t.amount .. '|' .. t.to .. '|' .. acct)
  redis.call('HINCRBY', versions, t.user, 1)
end
