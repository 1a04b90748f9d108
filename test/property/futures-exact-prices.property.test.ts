import fc from 'fast-check';
import { resolveIncludes, LUA_DIR } from '../../src/platform/redis/lua-loader';
import { testContext } from '../support/harness';

/**
 * fLiqPrice (lua/includes/futures/margin.lua) takes one exact division when its products stay below
 * 2^53, else three steps, where the remainder x 1e6 is divided directly below 2^52 and by doubling
 * (wideMulDiv) past it. Every path must give the exact quotient and remainder, so the prices are the
 * exact ones whichever ran: checked against BigInt over random inputs of every scale, with the 2^52
 * boundary and the largest divisors on purpose.
 */
const PROBE = `--- @include "includes/futures/margin"
local out = {}
local args = cjson.decode(ARGV[1])
if ARGV[2] == 'frac' then
  for i = 1, #args, 2 do
    local r, c = tonumber(args[i]), tonumber(args[i + 1])
    local q, rem = fFracMillionths(r, c)
    local qs, rs = wideMulDiv(r, 1000000, c)
    out[#out + 1] = string.format('%d', q) .. ':' .. string.format('%d', rem) .. '/' .. string.format('%d', qs) .. ':' .. string.format('%d', rs)
  end
else
  for i = 1, #args, 6 do
    -- the market's parameters as futuresMarketFor gives them: ns, mmr and the liquidation factor
    local mmr = tonumber(args[i + 1])
    local num, denL, denS = fLiqFactor(mmr)
    local ctx = { fut = { ns = tonumber(args[i]), mmr = mmr, liqNum = num, liqDenL = denL, liqDenS = denS } }
    local o = { id = i, side = args[i + 2], cost = tonumber(args[i + 3]), openQty = tonumber(args[i + 4]), margin = tonumber(args[i + 5]) }
    local ok, p = pcall(fLiqPrice, ctx, o)
    if ok then out[#out + 1] = string.format('%d', p) else out[#out + 1] = 'RANGE' end
  end
end
return out`;

const MAX_SAFE = 2n ** 53n - 1n;
const FAST_LIMIT = 2n ** 52n / 1_000_000n; // largest remainder on the direct path: 4503599627

/** A non-negative bigint below `below`, spread over every scale (log-uniform) plus the ends. */
const below = (max: bigint) =>
  fc.oneof(
    fc.bigInt({ min: 0n, max: max - 1n }),
    fc.integer({ min: 0, max: 52 }).chain((bits) => fc.bigInt({ min: 0n, max: (2n ** BigInt(bits) < max ? 2n ** BigInt(bits) : max) - 1n })),
    fc.constantFrom(0n, max - 1n),
  );

let ctx: Awaited<ReturnType<typeof testContext>>;
let lua: string;
beforeAll(async () => {
  ctx = await testContext();
  lua = resolveIncludes(LUA_DIR, PROBE, 'exact-prices-probe.lua');
});
afterAll(async () => ctx.cleanup());

it('floor(r x 1e6 / c) and its remainder: the direct path and the doubling agree, and are exact', async () => {
  // c < 2^53 / 3; r < c; the boundary remainders around 2^52 / 1e6 with the divisors above them
  const cArb = fc.oneof(below(MAX_SAFE / 3n).map((c) => c + 1n), fc.constantFrom(FAST_LIMIT + 1n, FAST_LIMIT + 2n, MAX_SAFE / 3n));
  const caseArb = cArb.chain((c) =>
    fc.tuple(fc.constant(c), c > FAST_LIMIT + 1n ? fc.oneof(below(c), fc.constantFrom(FAST_LIMIT - 1n, FAST_LIMIT, FAST_LIMIT + 1n)) : below(c)),
  );
  await fc.assert(
    fc.asyncProperty(fc.array(caseArb, { minLength: 1, maxLength: 300 }), async (cases) => {
      const got = (await ctx.redis.eval(lua, 0, JSON.stringify(cases.flatMap(([c, r]) => [String(r), String(c)])), 'frac')) as string[];
      const want = cases.map(([c, r]) => {
        const exact = `${(r * 1_000_000n) / c}:${(r * 1_000_000n) % c}`;
        return `${exact}/${exact}`;
      });
      expect(got).toEqual(want);
    }),
    { numRuns: 200 },
  );
}, 120_000);

it('liquidation prices are the exact ones on either path', async () => {
  const unit = fc.integer({ min: 0, max: 1_000_000 }).map((x) => x / 1_000_000);
  // log-uniform in [1, max]
  const logUniform = (u: number, max: bigint) => {
    const x = BigInt(Math.floor(Math.exp(u * Math.log(Number(max)))));
    return x < 1n ? 1n : x > max ? max : x;
  };
  const posArb = fc
    .record({
      ns: fc.constantFrom(1n, 1000n, 1_000_000n, 10_000_000n),
      mmr: fc.constantFrom(0n, 5000n, 100_000n, 999_999n),
      side: fc.constantFrom('buy', 'sell'),
      lotsU: unit,
      entryU: unit,
      extra: fc.bigInt({ min: 0n, max: 10n ** 15n }),
      marginPart: unit,
    })
    .map(({ ns, mmr, side, lotsU, entryU, extra, marginPart }) => {
      // within what fLiqPrice prices exactly: lots x ns x 3 and cost x ns + margin below 2^53, the
      // entry below 2^53 / 2e6 (beyond, it refuses or approximates, as documented there)
      const lots = logUniform(lotsU, MAX_SAFE / 3n / ns);
      let top = MAX_SAFE / 2n / ns / lots - 1n;
      if (top > 4_000_000_000n) top = 4_000_000_000n;
      const entry = top < 1n ? 0n : logUniform(entryU, top);
      const cost = entry * lots + (entry > 0n ? extra % lots : 0n);
      const margin = BigInt(Math.floor(Number(cost * ns) * marginPart));
      return { ns, mmr, side, lots, cost, margin: margin > cost * ns ? cost * ns : margin };
    })
    .filter(({ cost }) => cost > 0n);
  let slow = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(posArb, { minLength: 1, maxLength: 300 }), async (ps) => {
      const got = (await ctx.redis.eval(
        lua, 0, JSON.stringify(ps.flatMap((p) => [p.ns, p.mmr, p.side, p.cost, p.lots, p.margin].map(String))), 'liq',
      )) as string[];
      const want = ps.map(({ ns, mmr, side, lots, cost, margin }) => {
        const c = lots * ns;
        if (side === 'buy') {
          const num = (cost * ns - margin) * 1_000_000n;
          const den = c * (1_000_000n - mmr);
          if (((cost * ns - margin) % c) * 1_000_000n >= 2n ** 52n) slow++;
          return String(num <= 0n ? 0n : (num + den - 1n) / den);
        }
        if (((cost * ns + margin) % c) * 1_000_000n >= 2n ** 52n) slow++;
        return String(((cost * ns + margin) * 1_000_000n) / (c * (1_000_000n + mmr)));
      });
      expect(got).toEqual(want);
    }),
    { numRuns: 200 },
  );
  // both paths ran
  expect(slow).toBeGreaterThan(0);
}, 120_000);
