import { GroupCommit } from '../../src/platform/group-commit';

/**
 * GroupCommit with a fake `send` (no Redis): every call is recorded when it is made and settled by
 * the test whenever it likes, so what goes out together, and when, is visible exactly.
 */
interface Call {
  items: string[];
  resolve(r: string[]): void;
  reject(e: unknown): void;
}

function controlledSend() {
  const calls: Call[] = [];
  const send = (items: string[]) =>
    new Promise<string[]>((resolve, reject) => {
      calls.push({ items: items.slice(), resolve, reject });
    });
  /** Answers call `i` with each item's own result (upper-cased), then lets the callbacks run. */
  const answer = async (i: number) => {
    calls[i].resolve(calls[i].items.map((x) => x.toUpperCase()));
    await settle();
  };
  const fail = async (i: number, err: unknown) => {
    calls[i].reject(err);
    await settle();
  };
  return { calls, send, answer, fail };
}

/** Lets every pending promise callback run. */
const settle = () => new Promise((r) => setImmediate(r));

/** Observes a promise without awaiting it: whether, and how, it has settled so far. */
function watch<T>(p: Promise<T>) {
  const state: { settled: boolean; value?: T; error?: unknown } = { settled: false };
  p.then(
    (value) => Object.assign(state, { settled: true, value }),
    (error: unknown) => Object.assign(state, { settled: true, error }),
  );
  return state;
}

describe('GroupCommit', () => {
  it('sends an item on an idle lane at once, alone: the call is made before submit returns', () => {
    const { calls, send } = controlledSend();
    const gc = new GroupCommit(send, 64);
    const result = watch(gc.submit('A', 'a1'));
    // no await in between: the call was made inside submit
    expect(calls.map((c) => c.items)).toEqual([['a1']]);
    expect(result.settled).toBe(false);
  });

  it('sends what arrived during a call together in the next call, in submission order, each with its own result', async () => {
    const { calls, send, answer } = controlledSend();
    const gc = new GroupCommit(send, 64);
    const first = watch(gc.submit('A', 'a1'));
    const later = ['a2', 'a3', 'a4'].map((x) => watch(gc.submit('A', x)));
    // nothing more goes out while the first call runs
    expect(calls.map((c) => c.items)).toEqual([['a1']]);

    await answer(0);
    expect(first).toEqual({ settled: true, value: 'A1' });
    expect(calls.map((c) => c.items)).toEqual([['a1'], ['a2', 'a3', 'a4']]);
    // the waiting items hear nothing until their own call answers
    expect(later.map((w) => w.settled)).toEqual([false, false, false]);

    await answer(1);
    expect(later.map((w) => w.value)).toEqual(['A2', 'A3', 'A4']);
    expect(calls).toHaveLength(2);
  });

  it('caps a call at maxBatch: with maxBatch 3 and 7 waiting, calls of 3, 3 and 1 follow the first', async () => {
    const { calls, send, answer } = controlledSend();
    const gc = new GroupCommit(send, 3);
    const items = ['x0', 'x1', 'x2', 'x3', 'x4', 'x5', 'x6', 'x7'];
    const all = items.map((x) => watch(gc.submit('A', x)));
    expect(calls.map((c) => c.items)).toEqual([['x0']]);
    for (let i = 0; calls.length > i; i++) {
      // one call at a time: the next one goes out only when this one answers
      expect(calls).toHaveLength(i + 1);
      await answer(i);
    }
    expect(calls.map((c) => c.items)).toEqual([['x0'], ['x1', 'x2', 'x3'], ['x4', 'x5', 'x6'], ['x7']]);
    expect(all.map((w) => w.value)).toEqual(items.map((x) => x.toUpperCase()));
  });

  it('keeps lanes independent: a busy lane A neither delays lane B nor shares a call with it', async () => {
    const { calls, send, answer } = controlledSend();
    const gc = new GroupCommit(send, 64);
    const a1 = watch(gc.submit('A', 'a1'));
    const a2 = watch(gc.submit('A', 'a2'));
    const b1 = watch(gc.submit('B', 'b1'));
    // B went out at once although A has a call in flight and an item waiting
    expect(calls.map((c) => c.items)).toEqual([['a1'], ['b1']]);

    // B is answered and heard back while A's call is still in flight
    await answer(1);
    expect(b1).toEqual({ settled: true, value: 'B1' });
    expect([a1.settled, a2.settled]).toEqual([false, false]);
    const b2 = watch(gc.submit('B', 'b2'));
    expect(calls[2].items).toEqual(['b2']);

    await answer(0);
    expect(a1.value).toBe('A1');
    expect(calls[3].items).toEqual(['a2']);
    await answer(3);
    await answer(2);
    expect([a2.value, b2.value]).toEqual(['A2', 'B2']);
  });

  it('rejects every item of a failed call with that same error; other lanes and the lane itself keep working', async () => {
    const { calls, send, answer, fail } = controlledSend();
    const gc = new GroupCommit(send, 64);
    const first = watch(gc.submit('A', 'a1'));
    const batch = ['a2', 'a3', 'a4'].map((x) => watch(gc.submit('A', x)));
    const other = watch(gc.submit('B', 'b1'));
    await answer(0);
    expect(first.value).toBe('A1');
    expect(calls[2].items).toEqual(['a2', 'a3', 'a4']);

    // items that arrive while the failing call runs are not part of it
    const waiting = watch(gc.submit('A', 'a5'));
    const boom = new Error('redis went away');
    await fail(2, boom);
    expect(batch.map((w) => w.settled)).toEqual([true, true, true]);
    batch.forEach((w) => expect(w.error).toBe(boom));
    expect(batch.map((w) => w.value)).toEqual([undefined, undefined, undefined]);
    expect(other.settled).toBe(false);

    // the lane goes on: the item that waited goes out next and is answered normally
    expect(calls[3].items).toEqual(['a5']);
    await answer(3);
    expect(waiting).toEqual({ settled: true, value: 'A5' });
    await answer(1);
    expect(other.value).toBe('B1');

    // and an item on the now idle lane goes out at once
    const after = watch(gc.submit('A', 'a6'));
    expect(calls[4].items).toEqual(['a6']);
    await answer(4);
    expect(after.value).toBe('A6');
  });

  it('rejects the batch when send throws synchronously, without submit throwing, and the lane keeps working', async () => {
    const boom = new Error('bad arguments');
    const calls: string[][] = [];
    let release: (() => void) | undefined;
    const gc = new GroupCommit<string, string>((items) => {
      calls.push(items.slice());
      if (items.includes('bad')) throw boom;
      if (items[0] === 'hold') return new Promise((resolve) => (release = () => resolve(items)));
      return Promise.resolve(items.map((x) => x.toUpperCase()));
    }, 64);

    // alone on an idle lane
    let alone: Promise<string> | undefined;
    expect(() => (alone = gc.submit('A', 'bad'))).not.toThrow();
    await expect(alone).rejects.toBe(boom);

    // a batch of several, one of which makes send throw: all of that batch are rejected
    const held = watch(gc.submit('A', 'hold'));
    const batch = ['ok1', 'bad', 'ok2'].map((x) => watch(gc.submit('A', x)));
    (release as () => void)();
    await settle();
    expect(held.value).toBe('hold');
    expect(batch.map((w) => w.error)).toEqual([boom, boom, boom]);

    await expect(gc.submit('A', 'good')).resolves.toBe('GOOD');
    expect(calls).toEqual([['bad'], ['hold'], ['ok1', 'bad', 'ok2'], ['good']]);
  });

  it('frees the lane before callers hear back: an item submitted on hearing back goes out at once, alone', async () => {
    const { calls, send, answer } = controlledSend();
    const gc = new GroupCommit(send, 64);
    let callsWhenHeard = -1;
    let callsRightAfterSubmit = -1;
    let chained: Promise<string> | undefined;
    const first = gc.submit('A', 'a1').then((r) => {
      callsWhenHeard = calls.length;
      chained = gc.submit('A', `${r.toLowerCase()}-next`);
      callsRightAfterSubmit = calls.length;
      return r;
    });
    await answer(0);
    expect(await first).toBe('A1');
    expect([callsWhenHeard, callsRightAfterSubmit]).toEqual([1, 2]);
    expect(calls[1].items).toEqual(['a1-next']);
    await answer(1);
    expect(await chained).toBe('A1-NEXT');
  });

  it('frees the lane before callers hear of a failure too: an item submitted on the rejection goes out at once', async () => {
    const { calls, send, answer, fail } = controlledSend();
    const gc = new GroupCommit(send, 64);
    let retry: Promise<string> | undefined;
    let callsRightAfterSubmit = -1;
    const first = gc.submit('A', 'a1').catch((e: Error) => {
      retry = gc.submit('A', 'a1-retry');
      callsRightAfterSubmit = calls.length;
      return e.message;
    });
    await fail(0, new Error('timeout'));
    expect(await first).toBe('timeout');
    expect(callsRightAfterSubmit).toBe(2);
    expect(calls[1].items).toEqual(['a1-retry']);
    await answer(1);
    expect(await retry).toBe('A1-RETRY');
  });
});
