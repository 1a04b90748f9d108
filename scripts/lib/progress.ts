import { format } from 'node:util';
import { MultiBar } from 'cli-progress';

/**
 * Progress of a long-running script: a bar when stdout is a terminal, otherwise a plain line at
 * most every `everyMs` (plus the first and the last), so a piped or logged run still shows that it
 * moves. Plain lines go to stderr: the script's own stdout (tables, JSON paths) stays as it was.
 */
export interface Progress {
  /** Counts `n` more units done (default 1); `note` replaces the text shown after the count. */
  increment(n?: number, note?: string): void;
  /** Ends the display; on a terminal the bar is cleared. Call it in a `finally`. */
  stop(): void;
}

export interface ProgressOptions {
  /** What is counted, shown after the numbers: "orders", "s of load". */
  unit?: string;
  /** Plain mode: the shortest gap between two lines (default 10 s). */
  everyMs?: number;
  /** Bar or plain lines; default: whether `stream` is a terminal. */
  tty?: boolean;
  /** Where the bar is drawn and what decides the mode (default process.stdout). */
  stream?: NodeJS.WriteStream;
  /** Where plain lines go (default process.stderr). */
  plainStream?: NodeJS.WritableStream;
}

export function startProgress(label: string, total: number, opts: ProgressOptions = {}): Progress {
  const stream = opts.stream ?? process.stdout;
  const tty = opts.tty ?? stream.isTTY === true;
  return tty
    ? barProgress(label, total, opts.unit ?? '', stream)
    : plainProgress(label, total, opts.unit ?? '', opts.everyMs ?? 10_000, opts.plainStream ?? process.stderr);
}

/**
 * For a phase that lasts a set time (a load of `seconds`): counts one unit a second while `work`
 * runs, then whatever is left of `seconds`, so the total stays exact however long the phase took.
 */
export async function advanceWhile<T>(progress: Progress, seconds: number, work: Promise<T>): Promise<T> {
  let counted = 0;
  const timer = setInterval(() => {
    if (counted < seconds - 1) {
      counted++;
      progress.increment();
    }
  }, 1000);
  timer.unref();
  try {
    return await work;
  } finally {
    clearInterval(timer);
    if (seconds > counted) progress.increment(seconds - counted);
  }
}

/**
 * While the bar is drawn, console.log writes above it instead of through it: the script keeps
 * logging as it always did, and its lines come out whole.
 */
function barProgress(label: string, total: number, unit: string, stream: NodeJS.WriteStream): Progress {
  const bars = new MultiBar({
    stream,
    format: `${label} [{bar}] {percentage}% | {value}/{total}${unit ? ` ${unit}` : ''} | {duration_formatted}, eta {eta_formatted} {note}`,
    formatValue: (v, _o, type) => (type === 'value' || type === 'total' ? count(v) : String(v)),
    barsize: 30,
    clearOnComplete: true,
    hideCursor: false,
    etaBuffer: 50,
  });
  const bar = bars.create(total, 0, { note: '' });
  const consoleLog = console.log;
  console.log = (...args: unknown[]) => {
    bars.log(`${format(...args)}\n`);
    bars.update();
  };
  let stopped = false;
  return {
    increment(n = 1, note) {
      bar.increment(n, note === undefined ? undefined : { note: `| ${note}` });
    },
    stop() {
      if (stopped) return;
      stopped = true;
      bars.update(); // writes any line still waiting above the bar
      bars.stop();
      console.log = consoleLog;
    },
  };
}

function plainProgress(label: string, total: number, unit: string, everyMs: number, out: NodeJS.WritableStream): Progress {
  const started = Date.now();
  let done = 0;
  let note = '';
  let lastLine = 0;
  let stopped = false;
  const line = (final: boolean) => {
    const elapsed = Date.now() - started;
    const share = total > 0 ? ` (${Math.floor((done / total) * 100)} %)` : '';
    const eta = !final && done > 0 && done < total ? `, eta ${duration((elapsed * (total - done)) / done)}` : '';
    const what = unit ? ` ${unit}` : '';
    out.write(`${label}: ${count(done)}/${count(total)}${what}${share}, ${duration(elapsed)}${eta}${note ? `; ${note}` : ''}\n`);
    lastLine = Date.now();
  };
  line(false);
  return {
    increment(n = 1, text) {
      done += n;
      if (text !== undefined) note = text;
      if (Date.now() - lastLine >= everyMs && done < total) line(false);
    },
    stop() {
      if (stopped) return;
      stopped = true;
      line(true);
    },
  };
}

const count = (v: number) => Math.round(v).toLocaleString('en-US');

function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
}
