import { testContext } from '../support/harness';
import { run, type Step } from './futures-steps';

/**
 * Counterexamples the futures property test found, replayed step by step against the same invariants
 * (futures-steps.ts), so each stays fixed whatever the random runs happen to draw.
 */
const cases: { name: string; steps: Step[]; leverages: number[] }[] = [
  {
    // issue 10, seed -1053421421: a 100x long gapped far below its bankruptcy price with no book within
    // it, an empty insurance fund, and its only opposite positions in deficit at that price; the
    // sweep left it open below maintenance until ADL got a last resort (docs/futures.md "ADL")
    name: 'no counterparty solvent at the bankruptcy price',
    steps: [
      { kind: 'open', user: 1, isLong: true, isMarket: false, price: 100, amount: 0.05, tp: 0, sl: 85 },
      { kind: 'open', user: 0, isLong: false, isMarket: false, price: 85, amount: 0.01, tp: 85, sl: 0 },
      { kind: 'close', user: 0, pick: 0, isMarket: false, price: 85 },
      { kind: 'open', user: 0, isLong: false, isMarket: false, price: 85.1, amount: 0.06, tp: 85, sl: 85.2 },
      { kind: 'premium' },
      { kind: 'open', user: 0, isLong: false, isMarket: false, price: 85.1, amount: 0.06, tp: 85, sl: 0 },
    ],
    leverages: [25, 100, 1, 1],
  },
];

it.each(cases)('$name', async ({ steps, leverages }) => {
  const ctx = await testContext();
  try {
    await run(ctx, steps, leverages);
  } finally {
    await ctx.cleanup();
  }
});
