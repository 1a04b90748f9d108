import { Writable } from 'node:stream';
import { advanceWhile, startProgress, type Progress } from '../../scripts/lib/progress';

/** A stream that keeps what is written; `tty` makes it look like a terminal. */
function capture(tty = false) {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      chunks.push(String(chunk));
      done();
    },
  }) as Writable & { isTTY?: boolean; columns?: number };
  if (tty) Object.assign(stream, { isTTY: true, columns: 160 });
  return { stream: stream as unknown as NodeJS.WriteStream, text: () => chunks.join('') };
}

describe('progress, plain lines (not a terminal)', () => {
  it('writes a first line, one per increment when allowed, and a last line with the note', () => {
    const out = capture();
    const p = startProgress('bench:x', 10, { unit: 'orders', tty: false, everyMs: 0, plainStream: out.stream });
    p.increment(3);
    p.increment(7, 'all placed');
    p.stop();
    p.stop();
    const lines = out.text().trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^bench:x: 0\/10 orders \(0 %\), 0 s$/);
    expect(lines[1]).toMatch(/^bench:x: 3\/10 orders \(30 %\), \d+ s, eta \d+ s$/);
    expect(lines[2]).toMatch(/^bench:x: 10\/10 orders \(100 %\), \d+ s; all placed$/);
  });

  it('writes no more than one line per interval between the first and the last', () => {
    const out = capture();
    const p = startProgress('seed', 100_000, { tty: false, everyMs: 3_600_000, plainStream: out.stream });
    for (let i = 0; i < 1000; i++) p.increment(100);
    p.stop();
    const lines = out.text().trimEnd().split('\n');
    expect(lines).toEqual([expect.stringMatching(/^seed: 0\/100,000 \(0 %\)/), expect.stringMatching(/^seed: 100,000\/100,000 \(100 %\)/)]);
  });
});

describe('progress, bar (a terminal)', () => {
  it('draws the count, prints console.log lines whole above the bar, and gives console.log back', () => {
    const out = capture(true);
    const original = console.log;
    const p = startProgress('bench:y', 4, { unit: 'runs', stream: out.stream });
    try {
      expect(console.log).not.toBe(original);
      p.increment(3, 'third');
      console.log('run %d/%d done', 3, 4);
    } finally {
      p.stop();
    }
    expect(console.log).toBe(original);
    const text = out.text();
    expect(text).toContain('run 3/4 done\n');
    expect(text).toMatch(/bench:y \[[^\]]+\] 75% \| 3\/4 runs .*\| third/);
  });
});

describe('advanceWhile', () => {
  afterEach(() => jest.useRealTimers());

  function counter(): Progress & { units: number } {
    const c = { units: 0, increment: (n = 1) => void (c.units += n), stop: () => undefined };
    return c;
  }

  it('counts a unit a second while the work runs, then the rest of the seconds', async () => {
    jest.useFakeTimers();
    const p = counter();
    let finish: (v: string) => void = () => undefined;
    const run = advanceWhile(p, 10, new Promise<string>((r) => (finish = r)));
    jest.advanceTimersByTime(3_000);
    expect(p.units).toBe(3);
    jest.advanceTimersByTime(60_000);
    expect(p.units).toBe(9); // never past the phase's length while it runs
    finish('done');
    await expect(run).resolves.toBe('done');
    expect(p.units).toBe(10);
  });

  it('counts the whole phase when the work fails, and passes the failure on', async () => {
    const p = counter();
    await expect(advanceWhile(p, 5, Promise.reject(new Error('load failed')))).rejects.toThrow('load failed');
    expect(p.units).toBe(5);
  });
});
