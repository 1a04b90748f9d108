import fc from 'fast-check';
import { testContext } from '../support/harness';
import { USERS, run, stepArb } from './futures-steps';

/** Random futures sequences against the invariants of futures-steps.ts (issue 10's among them). */
it('keeps the futures book, positions and money consistent under random sequences', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(stepArb, { minLength: 5, maxLength: 40 }),
      fc.array(fc.constantFrom(1, 3, 10, 25, 100), { minLength: USERS.length, maxLength: USERS.length }),
      async (steps, leverages) => {
        const ctx = await testContext();
        try {
          await run(ctx, steps, leverages);
        } finally {
          await ctx.cleanup();
        }
      },
    ),
    { numRuns: 100 },
  );
  // 100 random runs take about a minute on the shared 2-core machine: a bound, not a timed assertion
}, 180_000);
