--[[
  KEYS[1..12] of every spot script that works on a market, in this order (the caller passes them:
  SpotEngine.marketKeys in src/spot/spot-engine.ts builds the same list):
    KEYS[1] order id counter      KEYS[5] level prices bids       KEYS[9]  book sequence
    KEYS[2] trade id counter      KEYS[6] level prices asks       KEYS[10] market event stream
    KEYS[3] book bids             KEYS[7] level quantities bids   KEYS[11] market last price
    KEYS[4] book asks             KEYS[8] level quantities asks   KEYS[12] fees collected (hash by currency)
]]

-- The market's keys as a context holds them (includes/publishEvents newContext).
local function spotMarketKeys(KEYS)
  return {
    orderIds = KEYS[1], tradeIds = KEYS[2],
    book = { bids = KEYS[3], asks = KEYS[4] },
    levels = { bids = KEYS[5], asks = KEYS[6] },
    lvlqty = { bids = KEYS[7], asks = KEYS[8] },
    seq = KEYS[9], events = KEYS[10], last = KEYS[11], fees = KEYS[12],
  }
end
