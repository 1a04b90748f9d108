import type { Logger } from '../platform/config/logger';

/** Signals closer together than this are one Ctrl-C delivered twice, not a second one. */
const REPEAT_MS = 250;

interface Step {
  name: string;
  run(): Promise<unknown>;
}

/**
 * What `npm start` has started, stopped in reverse order on SIGINT/SIGTERM or a failed start: the
 * demo before the roles it trades through, the roles before the Redis connections, our own Redis
 * last. The whole stop has a deadline; past it, or on a second signal, the process exits at once
 * after the synchronous `finally` hooks (SIGTERM to our own Redis).
 */
export class Shutdown {
  private readonly steps: Step[] = [];
  private readonly finals: (() => void)[] = [];
  private started = false;
  private deadline?: NodeJS.Timeout;

  constructor(
    private readonly log: Pick<Logger, 'info' | 'warn' | 'error'>,
    private readonly deadlineMs: number,
    private readonly exit: (code: number) => never = process.exit,
    private readonly signals: Pick<NodeJS.Process, 'on'> = process,
  ) {}

  /** Stopped before everything added earlier. */
  add(name: string, run: () => Promise<unknown>): void {
    this.steps.push({ name, run });
  }

  /** Run on every exit, the forced ones included: must be synchronous. */
  finally(hook: () => void): void {
    this.finals.push(hook);
  }

  /**
   * SIGINT and SIGTERM stop in order; a second one exits at once. One Ctrl-C can arrive twice within
   * milliseconds (the terminal signals the whole group, and a parent such as npm or tsx relays it
   * too), so a repeat within REPEAT_MS counts as the same one.
   */
  onSignals(): void {
    let first = 0;
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      this.signals.on(signal, () => {
        if (this.started && Date.now() - first < REPEAT_MS) return;
        if (this.started) return this.exitNow(`${signal} again: exiting at once`, 130);
        first = Date.now();
        this.log.info({ signal }, `${signal}: shutting down (a second Ctrl-C exits at once)`);
        void this.run(0);
      });
    }
  }

  /** Stops every step in reverse order within the deadline, then exits with `code`. */
  async run(code: number): Promise<void> {
    this.started = true;
    this.deadline = setTimeout(
      () => this.exitNow(`shutdown took longer than ${this.deadlineMs} ms: exiting`, 1),
      this.deadlineMs,
    );
    for (const step of this.steps.reverse()) {
      await step
        .run()
        .catch((err: unknown) => this.log.error({ err, step: step.name }, `${step.name}: stop failed`));
    }
    clearTimeout(this.deadline);
    for (const hook of this.finals) hook();
    this.log.info('stopped');
    return this.exit(code);
  }

  private exitNow(why: string, code: number): never {
    clearTimeout(this.deadline);
    this.log.warn(why);
    for (const hook of this.finals) hook();
    return this.exit(code);
  }
}
