/**
 * A bench must end by itself: after `seconds` this prints why and exits non-zero (the exit hook of
 * redis-server.ts still stops any private server). The timer is unref'd so it never keeps a
 * finished bench alive.
 */
export function exitAfter(seconds: number, what: string): void {
  const t = setTimeout(() => {
    console.error(`${what}: still running after ${seconds} s, giving up`);
    process.exit(3);
  }, seconds * 1000);
  t.unref();
}

/** Reads a positive integer from the environment, with a default. */
export function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, got ${raw}`);
  return n;
}

/** A count from the environment where 0 means "skip this phase" (envInt refuses 0). */
export function envCount(name: string, fallback: number): number {
  return process.env[name] === '0' ? 0 : envInt(name, fallback);
}

/** Runs a bench's main and exits with its outcome: 0, or 1 after printing the error. */
export function runBench(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
