import { GroupCommit } from '../../src/engine/group-commit';

/** A send whose calls are recorded and settled by the test, in any order it likes. */
function controlledSend() {
  const calls: { items: string[]; resolve(r: string[]): void; reject(e: unknown): void }[] = [];
  const send = (items: string[]) =>
    new Promise<string[]>((resolve, reject) => {
      calls.push({ items, resolve, reject });
    });
  /** Answers call `i` with each item upper-cased, so every item's result is its own. */
  const answer = async (i: number) => {
    calls[i].resolve(calls[i].items.map((x) => x.toUpperCase()));
    await flush();
  };
  return { calls, send, answer };
}

const flush = () => new Promise((r) => setImmediate(r));

describe('GroupCommit', () => {
  it('sends an item on an idle lane at once, alone, before submit returns', () => {
    const { calls, send } = controlledSend();
    const gc = new GroupCommit(send, 64);
    void gc.submit('A', 'a1');
    expect(calls.map((c) => c.items)).toEqual([['a1']]);
  });

  it('sends what arrived during a call together in the next one, in order, each with its own result', async () => {
    const { calls, send, answer } = controlledSend();
    const gc = new GroupCommit(send, 64);
    const first = gc.submit('A', 'a1');
    const later = ['a2', 'a3', 'a4'].map((x) => gc.submit('A', x));
    expect(calls).toHaveLength(1);
    await answer(0);
    expect(await first).toBe('A1');
    expect(calls.map((c) => c.items)).toEqual([['a1'], ['a2', 'a3', 'a4']]);
    await answer(1);
    expect(await Promise.all(later)).toEqual(['A2', 'A3', 'A4']);
  });

  it('caps a call at maxBatch items', async () => {
    const { calls, send, answer } = controlledSend();
    const gc = new GroupCommit(send, 3);
    const all = ['x0', 'x1', 'x2', 'x3', 'x4', 'x5', 'x6', 'x7'].map((x) => gc.submit('A', x));
    for (let i = 0; i < 4; i++) await answer(i);
    expect(calls.map((c) => c.items.length)).toEqual([1, 3, 3, 1]);
    expect(calls.flatMap((c) => c.items)).toEqual(['x0', 'x1', 'x2', 'x3', 'x4', 'x5', 'x6', 'x7']);
    expect(await Promise.all(all)).toEqual(['X0', 'X1', 'X2', 'X3', 'X4', 'X5', 'X6', 'X7']);
  });

  it('keeps lanes apart: a busy lane does not hold back another', () => {
    const { calls, send } = controlledSend();
    const gc = new GroupCommit(send, 64);
    void gc.submit('A', 'a1');
    void gc.submit('A', 'a2');
    void gc.submit('B', 'b1');
    expect(calls.map((c) => c.items)).toEqual([['a1'], ['b1']]);
  });

  it('rejects every item of a failed call with its error, and the lane goes on working', async () => {
    const { calls, send, answer } = controlledSend();
    const gc = new GroupCommit(send, 64);
    const first = gc.submit('A', 'a1');
    const batch = [gc.submit('A', 'a2'), gc.submit('A', 'a3')];
    await answer(0);
    await first;
    const boom = new Error('redis went away');
    calls[1].reject(boom);
    const outcomes = await Promise.allSettled(batch);
    expect(outcomes).toEqual([
      { status: 'rejected', reason: boom },
      { status: 'rejected', reason: boom },
    ]);
    const after = gc.submit('A', 'a4');
    expect(calls[2].items).toEqual(['a4']);
    await answer(2);
    expect(await after).toBe('A4');
  });

  it('rejects the batch when send throws instead of answering', async () => {
    const boom = new Error('bad arguments');
    let n = 0;
    const gc = new GroupCommit<string, string>((items) => {
      n++;
      if (items.includes('bad')) throw boom;
      return Promise.resolve(items);
    }, 64);
    await expect(gc.submit('A', 'bad')).rejects.toBe(boom);
    await expect(gc.submit('A', 'good')).resolves.toBe('good');
    expect(n).toBe(2);
  });

  it('frees the lane before callers hear back: an item submitted on hearing back goes out at once, alone', async () => {
    const { calls, send, answer } = controlledSend();
    const gc = new GroupCommit(send, 64);
    let sentWhenHeard = -1;
    const chained = gc.submit('A', 'a1').then(() => {
      const next = gc.submit('A', 'a2');
      sentWhenHeard = calls.length;
      return next;
    });
    await answer(0);
    expect(sentWhenHeard).toBe(2);
    expect(calls[1].items).toEqual(['a2']);
    await answer(1);
    expect(await chained).toBe('A2');
  });
});
