import { ReadGate } from '../../src/market-data/read-gate';

describe('ReadGate', () => {
  it('runs at most its limit at once, the rest in arrival order, and frees its place on failure', async () => {
    const gate = new ReadGate(2);
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const release: (() => void)[] = [];
    const work = (i: number) =>
      gate.run(async () => {
        started.push(i);
        running++;
        most = Math.max(most, running);
        await new Promise<void>((r) => release.push(r));
        running--;
        if (i === 1) throw new Error('boom');
        return i;
      });
    const all = [0, 1, 2, 3, 4].map((i) => work(i).catch((e: Error) => e.message));
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([0, 1]);
    // finish whatever runs, one at a time, until everything has run
    while (release.length) {
      release.shift()?.();
      await new Promise((r) => setImmediate(r));
    }
    expect(await Promise.all(all)).toEqual([0, 'boom', 2, 3, 4]);
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(most).toBe(2);
  });
});
